/**
 * A table answer turned into what uPlot draws, in single passes over the rows: a timechart of
 * 1,000 buckets × 10 series is 10,000 cells, and the chart must be painted within 100 ms of the
 * answer (bench/ui.ts), so no per-point objects and no pass per column.
 */

/** The columns to draw: every value a number or null, at least one number; `_time` is the x axis, never a series. */
export function numericColumns(columns: string[], rows: unknown[][]): number[] {
  const seen = new Array<boolean>(columns.length).fill(false);
  const ok = columns.map((c) => c !== '_time');
  for (const r of rows) {
    for (let i = 0; i < columns.length; i++) {
      const v = r[i];
      if (typeof v === 'number') seen[i] = true;
      else if (v !== null) ok[i] = false;
    }
  }
  return columns.map((_, i) => i).filter((i) => ok[i] && seen[i]);
}

export interface TimechartData {
  /** Bucket starts in epoch seconds (uPlot's time scale). */
  xs: Float64Array;
  /** One array per drawn column, null where the row has no number (uPlot leaves a gap). */
  ys: (number | null)[][];
  /** Each drawn column's sum, for the legend. */
  totals: number[];
}

/** The x values, the series of `cols` and their totals, in one pass over the rows. */
export function timechartData(columns: string[], rows: unknown[][], cols: number[]): TimechartData {
  const ti = columns.indexOf('_time');
  const n = rows.length;
  const xs = new Float64Array(n);
  const ys = cols.map(() => new Array<number | null>(n));
  const totals = cols.map(() => 0);
  for (let j = 0; j < n; j++) {
    const r = rows[j];
    xs[j] = Date.parse(String(r[ti])) / 1000;
    for (let k = 0; k < cols.length; k++) {
      const v = r[cols[k]];
      if (typeof v === 'number') {
        ys[k][j] = v;
        totals[k] += v;
      } else ys[k][j] = null;
    }
  }
  return { xs, ys, totals };
}
