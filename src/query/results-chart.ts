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
 * Pivots a final `chart … over x by y` (rows of x, y, aggregations, in x order) into one row per x
 * and one column per y value (`agg: value` with several aggregations), sorted by name with `NULL`
 * and `OTHER` last; a missing cell is 0 for count and dc, else null. Rows are JSON values already.
 */
export function shapeChart(info: TimechartInfo & { over: string }, columns: string[], rows: unknown[][]): { columns: string[]; rows: unknown[][] } {
  if (!info.by) return { columns, rows };
  const xi = columns.indexOf(info.over);
  const yi = columns.indexOf(info.by);
  const aggIdx = info.aggs.map((a) => columns.indexOf(a.name));
  const series = [...new Set(rows.map((r) => String(r[yi])))].sort(seriesOrder);
  const outCols = [info.over, ...(info.aggs.length === 1 ? series : info.aggs.flatMap((a) => series.map((s) => `${a.name}: ${s}`)))];
  const empty = () => info.aggs.flatMap((a) => series.map(() => (a.zero ? 0 : null)));
  const byX = new Map<string, unknown[]>();
  for (const r of rows) {
    const key = JSON.stringify(r[xi]);
    let row = byX.get(key);
    if (!row) byX.set(key, (row = [r[xi], ...empty()]));
    const s = series.indexOf(String(r[yi]));
    aggIdx.forEach((ci, a) => (row[1 + a * series.length + s] = r[ci]));
  }
  return { columns: outCols, rows: [...byX.values()] };
}
