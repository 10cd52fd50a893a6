/**
 * How well `patterns` finds the templates people wrote: grouping accuracy (the standard score of
 * log parsers) on every loghub 2k sample under SVC_REAL_DATA (default ../shared/data/real). A line
 * counts as right when svc's template for it holds exactly the lines of its human template
 * (`*_structured.csv`). Scored twice: on whole lines, as svc stores text logs, and on the content
 * after each data set's header (date, level, component), as log parsers are usually scored.
 *
 *   npx tsx bench/patterns-accuracy.ts
 *
 * Runs the same steps as a search, in memory: the shape (shape-sql.ts's regex), the shape's least
 * and greatest line as its samples, the merge (merge.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { mergeShapes } from '../src/query/patterns/merge.js';
import { shapeOf } from '../src/query/patterns/shape-sql.js';
import { shapeWords } from '../src/query/patterns/template.js';
import { realDataDir } from './lib/dataset.js';

/** The template index of every line. */
function templateOf(lines: string[]): { of: number[]; templates: number } {
  const shapes = new Map<string, { lines: number[]; lo: string; hi: string }>();
  lines.forEach((l, i) => {
    const key = shapeOf(l);
    const s = shapes.get(key);
    if (!s) shapes.set(key, { lines: [i], lo: l, hi: l });
    else {
      s.lines.push(i);
      if (l < s.lo) s.lo = l;
      if (l > s.hi) s.hi = l;
    }
  });
  const merged = mergeShapes(
    [...shapes.values()].map((s) => ({
      group: '',
      words: shapeWords(s.lo, s.hi),
      count: s.lines.length,
      data: s.lines,
    })),
  );
  const of = new Array<number>(lines.length);
  merged.forEach((t, ti) => t.shapes.forEach((s) => s.data.forEach((i) => (of[i] = ti))));
  return { of, templates: merged.length };
}

function groupingAccuracy(of: number[], truth: string[]): number {
  const size = new Map<number, number>();
  for (const t of of) size.set(t, (size.get(t) ?? 0) + 1);
  const human = new Map<string, number[]>();
  truth.forEach((id, i) => human.set(id, [...(human.get(id) ?? []), i]));
  let right = 0;
  for (const lines of human.values()) {
    const t = of[lines[0]];
    if (lines.every((i) => of[i] === t) && size.get(t) === lines.length) right += lines.length;
  }
  return right / truth.length;
}

function main(): void {
  const root = join(realDataDir(), 'loghub');
  if (!existsSync(root)) throw new Error(`no loghub data at ${root} (set SVC_REAL_DATA)`);
  const rows: string[] = [];
  let sumWhole = 0;
  let sumContent = 0;
  const sets = readdirSync(root)
    .filter((d) => existsSync(join(root, d, `${d}_2k.log_structured.csv`)))
    .sort();
  for (const d of sets) {
    const structured = parseCsv<{ Content: string; EventId: string }>(
      readFileSync(join(root, d, `${d}_2k.log_structured.csv`)),
      { columns: true },
    );
    const raw = readFileSync(join(root, d, `${d}_2k.log`), 'utf8')
      .split(/\r?\n/)
      .filter((l) => l.length > 0);
    const n = Math.min(raw.length, structured.length);
    const truth = structured.slice(0, n).map((r) => r.EventId);
    const whole = templateOf(raw.slice(0, n));
    const content = templateOf(structured.slice(0, n).map((r) => r.Content));
    const w = groupingAccuracy(whole.of, truth);
    const c = groupingAccuracy(content.of, truth);
    sumWhole += w;
    sumContent += c;
    rows.push(
      `| ${d} | ${w.toFixed(3)} (${whole.templates}) | ${c.toFixed(3)} (${content.templates}) | ${new Set(truth).size} |`,
    );
  }
  console.log('| data set | whole lines (templates) | content (templates) | human templates |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`| mean | ${(sumWhole / sets.length).toFixed(3)} | ${(sumContent / sets.length).toFixed(3)} | |`);
}

main();
