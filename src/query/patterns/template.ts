import { mergeShapes, unify, type Shape, type Template } from './merge.js';
import { joinWords, maskedWords, WILDCARD, type Words } from './tokens.js';

/**
 * The answer of `patterns`, built from the rows of its SQL stage (one row per shape: messages that
 * are equal once their digits are masked, shape-sql.ts) by merging them into templates (merge.ts).
 */

/** The columns the SQL stage gives after the `by` fields, in order (shape-sql.ts). */
export const SHAPE_COLUMNS = ['__n', '__lo', '__hi', '__first', '__last', '__other'] as const;
/** The answer's columns after the `by` fields. */
export const RESULT_COLUMNS = ['pattern', 'count', 'first_time', 'last_time', 'sample'] as const;

/**
 * A shape's words from two of its messages (the least and the greatest): masked words, with
 * `<*>` where the two still differ (a word whose digits the shape masked: `user7`, `user12`).
 */
export function shapeWords(lo: string, hi: string): Words {
  const a = maskedWords(lo);
  if (hi === lo) return a;
  const b = maskedWords(hi);
  return b.words.length === a.words.length ? { words: unify(a.words, b.words), seps: a.seps } : a;
}

interface ShapeRow {
  by: unknown[];
  lo: string;
  first: string | null;
  last: string | null;
}

export interface PatternsOptions {
  /** How many `by` fields lead each row. */
  byCount: number;
  /** Templates kept per group, most common first. */
  limit?: number;
}

/** The answer of `patterns` (its `by` fields and `limit`) from its stage's rows, at most `maxRows` rows. */
export function patternsTable(
  n: { by: string[]; limit?: number },
  rows: unknown[][],
  maxRows: number,
): { columns: string[]; rows: unknown[][] } {
  return {
    columns: [...n.by, ...RESULT_COLUMNS],
    rows: patternRows({ byCount: n.by.length, limit: n.limit }, rows).slice(0, maxRows),
  };
}

/** The answer's rows from the stage's rows (jsonValue'd): by fields, pattern, count, first_time, last_time, sample. */
export function patternRows(opts: PatternsOptions, rows: unknown[][]): unknown[][] {
  const shapes: Shape<ShapeRow>[] = [];
  const other: unknown[][] = [];
  const k = opts.byCount;
  for (const r of rows) {
    const by = r.slice(0, k);
    const [n, lo, hi, first, last, isOther] = r.slice(k);
    const data: ShapeRow = { by, lo: String(lo), first: first as string | null, last: last as string | null };
    // the rarest shapes beyond the stage's cap, counted together: any message
    if (isOther === true) other.push([...by, WILDCARD, Number(n), first, last, String(lo)]);
    else shapes.push({ group: JSON.stringify(by), words: shapeWords(String(lo), String(hi)), count: Number(n), data });
  }
  const out = [...mergeShapes(shapes).map(templateRow), ...other];
  out.sort((a, b) => compareRows(a, b, k));
  return opts.limit === undefined ? out : limitPerGroup(out, k, opts.limit);
}

function templateRow(t: Template<ShapeRow>): unknown[] {
  const top = t.shapes[0];
  let first = top.data.first;
  let last = top.data.last;
  for (const s of t.shapes) {
    if (s.data.first !== null && (first === null || s.data.first < first)) first = s.data.first;
    if (s.data.last !== null && (last === null || s.data.last > last)) last = s.data.last;
  }
  // times are RFC 3339 text of one width (sql.ts timeText): text order is time order
  return [...top.data.by, joinWords({ words: t.words, seps: top.words.seps }), t.count, first, last, top.data.lo];
}

/** By the `by` values, then count descending, then pattern. */
function compareRows(a: unknown[], b: unknown[], k: number): number {
  for (let i = 0; i < k; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  const n = (b[k + 1] as number) - (a[k + 1] as number);
  if (n !== 0) return n;
  return compareValues(a[k], b[k]);
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = typeof a === 'string' ? a : JSON.stringify(a);
  const y = typeof b === 'string' ? b : JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function limitPerGroup(rows: unknown[][], k: number, limit: number): unknown[][] {
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const g = JSON.stringify(r.slice(0, k));
    const n = (seen.get(g) ?? 0) + 1;
    seen.set(g, n);
    return n <= limit;
  });
}
