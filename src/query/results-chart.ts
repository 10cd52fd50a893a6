import type { TimechartInfo } from './stages.js';

/** Series chart puts last, in this order: events lacking the `by` field, then the series past `limit`. */
const LAST_SERIES = ['NULL', 'OTHER'];

const seriesOrder = (a: string, b: string): number => {
  const la = LAST_SERIES.indexOf(a);
  const lb = LAST_SERIES.indexOf(b);
  if (la !== lb) return la - lb;
  return a < b ? -1 : a > b ? 1 : 0;
};

/**
 * The pivot of timechart and chart `by`: per key (a bucket's time, an x value) one row of cells,
 * one per series value (per aggregation when several, aggregation-major), named `value` or
 * `agg: value`. Keys keep the order they are first seen; a missing cell is 0 for count and dc,
 * else null (`empty`).
 */
export function pivotSeries<K>(
  info: Pick<TimechartInfo, 'aggs'>,
  columns: string[],
  rows: unknown[][],
  p: {
    by: string;
    key: (row: unknown[], i: number) => K;
    label: (v: unknown) => string;
    order?: (a: string, b: string) => number;
  },
): { names: string[]; cells: Map<K, unknown[]>; empty: () => unknown[] } {
  const bi = columns.indexOf(p.by);
  const aggIdx = info.aggs.map((a) => columns.indexOf(a.name));
  const series = [...new Set(rows.map((r) => p.label(r[bi])))].sort(p.order);
  const names = info.aggs.length === 1 ? series : info.aggs.flatMap((a) => series.map((s) => `${a.name}: ${s}`));
  const empty = () => info.aggs.flatMap((a) => series.map(() => (a.zero ? 0 : null)));
  const cells = new Map<K, unknown[]>();
  rows.forEach((r, i) => {
    const k = p.key(r, i);
    let row = cells.get(k);
    if (!row) cells.set(k, (row = empty()));
    const s = series.indexOf(p.label(r[bi]));
    aggIdx.forEach((ci, a) => (row[a * series.length + s] = r[ci]));
  });
  return { names, cells, empty };
}

/**
 * Pivots a final `chart … over x by y` (rows of x, y, aggregations, in x order) into one row per x
 * and one column per y value (`agg: value` with several aggregations), sorted by name with `NULL`
 * and `OTHER` last; a missing cell is 0 for count and dc, else null. Rows are JSON values already.
 */
export function shapeChart(
  info: TimechartInfo & { over: string },
  columns: string[],
  rows: unknown[][],
): { columns: string[]; rows: unknown[][] } {
  if (!info.by) return { columns, rows };
  const xi = columns.indexOf(info.over);
  const xs = new Map<string, unknown>(rows.map((r) => [JSON.stringify(r[xi]), r[xi]]));
  const p = pivotSeries(info, columns, rows, {
    by: info.by,
    key: (r) => JSON.stringify(r[xi]),
    label: String,
    order: seriesOrder,
  });
  return { columns: [info.over, ...p.names], rows: [...p.cells].map(([k, cells]) => [xs.get(k), ...cells]) };
}
