/**
 * `patterns` benchmark: loads the shared data set (bench/lib/dataset.ts: every real log line and
 * Zeek record under SVC_REAL_DATA, cycled with shifted ids; 1M events by default) into a storage
 * engine once, then times searches ending in `patterns` through the SearchService.
 *
 *   npx tsx bench/patterns.ts [--events 1000000] [--runs 5] [--reload]
 *
 * The loaded data dir is bench/query.ts's (/tmp/svc-bench/query-data-<N>), reused across runs.
 * Reports min / median / max wall time of the SearchService call after one warm-up run, the number
 * of templates, and RSS; then, for `* | patterns`, how the time splits between the statement
 * (DuckDB: mask, group by shape) and the merge into templates (JS), with the shape count.
 */
import { cpus } from 'node:os';
import { systemClock } from '../src/clock/clock.js';
import { SYSTEM_PRINCIPAL } from '../src/auth/principal.js';
import { compile } from '../src/query/compile.js';
import { prepare, scanSpec } from '../src/query/prepare.js';
import { SHAPE_ROWS } from '../src/query/patterns/shape-sql.js';
import { patternsTable } from '../src/query/patterns/template.js';
import { finalPatterns } from '../src/query/pipes/pipe-patterns.js';
import { jsonValue } from '../src/query/results.js';
import type { StorageEngine } from '../src/storage/engine.js';
import { benchControl as control, openQueryBench } from './lib/load.js';
import { numArg, timeRuns } from './lib/args.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** The statement alone, then the merge alone, for one query: where the time goes. */
async function split(engine: StorageEngine, q: string): Promise<string> {
  const p = await prepare({ store: engine, control, clock: systemClock }, SYSTEM_PRINCIPAL, { q });
  const n = finalPatterns(p.q.pipes)!;
  return engine.scan(scanSpec(p, p.a.fields), async (rel, exec) => {
    const c = compile(p.q, rel, { nowMs: p.nowMs, limit: SHAPE_ROWS });
    const t0 = performance.now();
    const r = await exec(c.sql);
    const t1 = performance.now();
    const table = patternsTable(
      n,
      r.rows.map((row) => row.map(jsonValue)),
      10_000,
    );
    const t2 = performance.now();
    return `statement ${(t1 - t0).toFixed(0)} ms (${r.rows.length} shapes), merge ${(t2 - t1).toFixed(0)} ms (${table.rows.length} templates)`;
  });
}

async function main(): Promise<void> {
  const events = numArg('events', 1_000_000);
  const runs = numArg('runs', 5);
  const { ds, engine, svc } = await openQueryBench(events);
  const cases = [
    '* | patterns',
    '* | patterns by sourcetype',
    'sourcetype=openssh | patterns',
    'error | patterns limit=10',
  ];
  const rows: string[] = [];
  let top: unknown[][] = [];
  for (const q of cases) {
    const first = await svc.search(SYSTEM_PRINCIPAL, { q });
    if (q === cases[0]) top = first.rows!.slice(0, 15);
    const t = await timeRuns(runs, () => svc.search(SYSTEM_PRINCIPAL, { q }));
    rows.push(
      `| \`${q}\` | ${t.min.toFixed(0)} | ${t.median.toFixed(0)} | ${t.max.toFixed(0)} | ${first.meta.matched} | ${first.rows!.length} | ${mib(process.memoryUsage().rss)} |`,
    );
  }
  console.log(
    `patterns benchmark: ${ds.events.toLocaleString('en')} events (${mib(ds.bytes)} NDJSON), ${engine.stats().blocks} blocks, ${cpus().length} cores (${cpus()[0]?.model ?? '?'})`,
  );
  console.log('');
  console.log('| query | min ms | median ms | max ms | matched | templates | RSS after |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log('');
  console.log(
    `\`* | patterns\`: ${await split(engine, '* | patterns')}; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)}`,
  );
  console.log('');
  console.log('most common templates of `* | patterns`:');
  for (const r of top) console.log(`  ${String(r[1]).padStart(8)}  ${String(r[0]).slice(0, 150)}`);
  await engine.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
