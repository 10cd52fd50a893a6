import uPlot from 'uplot';
import { numericColumns, timechartData } from '../../search/chart-data';
import { axisStyle, seriesColor } from '../../ui/palette';
import type { Built } from './UplotChart';

export type SeriesStyle = 'line' | 'area' | 'stacked-bar';

/** What a timeseries panel draws: the plot, and each series' name, colour and total for its legend. */
export interface Timeseries {
  built: Built;
  series: { name: string; color: string; total: number }[];
  /** Bucket starts (epoch seconds) and the bucket width, for the range of a clicked point. */
  xs: Float64Array;
  spanSecs: number;
  /** The drawn values per series in column order (not stacked), to find the series under a click. */
  ys: (number | null)[][];
}

const MAX_SERIES = 12;

/** A compact number for the y axis: 1.2k, 3M. */
export function shortCount(v: number): string {
  const a = Math.abs(v);
  return a >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : a >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : String(+v.toFixed(2));
}

/**
 * A timechart answer as lines, areas or stacked bars over the panel's whole range (as Grafana draws
 * it: where nothing was counted shows as such); null when it has no `_time` and number columns.
 */
export function buildTimeseries(
  columns: string[],
  rows: unknown[][],
  style: SeriesStyle,
  range: { from: string; to: string },
): Timeseries | null {
  const nums = numericColumns(columns, rows).slice(0, MAX_SERIES);
  if (!columns.includes('_time') || nums.length === 0 || rows.length === 0) return null;
  const { xs, ys, totals } = timechartData(columns, rows, nums);
  const [lo, hi] = [Date.parse(range.from) / 1000, Date.parse(range.to) / 1000];
  // one bucket alone does not say its width: it reaches to the range's end at most
  const spanSecs = xs.length > 1 ? xs[1] - xs[0] : Math.max(1, hi - xs[0]);
  const names = nums.map((c) => columns[c]);
  const colors = names.map((n, k) => seriesColor(n, k));
  const axis = axisStyle();
  const stacked = style === 'stacked-bar';
  // stacked bars are drawn as cumulative heights, the tallest first so each shows above the next
  let data: (number | null)[][] = ys;
  let order = names.map((_, k) => k);
  if (stacked) {
    const cum = ys.map(() => new Array<number>(xs.length));
    for (let j = 0; j < xs.length; j++) {
      let acc = 0;
      ys.forEach((y, k) => (cum[k][j] = acc += y[j] ?? 0));
    }
    data = cum.reverse();
    order = order.reverse();
  }
  const bars = uPlot.paths.bars!({ size: [0.86, 48], align: 1, gap: 1 });
  const series: uPlot.Series[] = order.map((k) => ({
    label: names[k],
    stroke: colors[k],
    fill: stacked ? colors[k] : style === 'area' ? `${colors[k]}38` : undefined,
    width: stacked ? 0 : rows.length * 3 > 1600 ? 1 : 2,
    paths: stacked ? bars : undefined,
    points: { show: !stacked && rows.length < 40 },
  }));
  const opts: Built['opts'] = {
    legend: { show: false },
    padding: [8, 20, 0, 0],
    cursor: { points: { show: !stacked }, y: false },
    scales: {
      x: { time: true, range: (_u, min, max) => [Math.min(lo, min), Math.max(hi, stacked ? max + spanSecs : max)] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.08)] },
    },
    axes: [
      { ...axis, space: 70 },
      { ...axis, size: 48, values: (_u, vals) => vals.map(shortCount) },
    ],
    series: [{}, ...series],
  };
  return {
    // uPlot widens a scale of one x value by years: a second x, the bucket's end, without values, keeps it to the range
    built: {
      opts,
      data: xs.length === 1 ? [[xs[0], xs[0] + spanSecs], ...data.map((d) => [d[0], null])] : [xs, ...data],
    },
    series: names.map((name, k) => ({ name, color: colors[k], total: totals[k] })),
    xs,
    spanSecs,
    ys,
  };
}

/**
 * The series under a click at bucket `idx`, value `y`: for stacked bars the band `y` falls in, for
 * lines and areas the one whose value is nearest.
 */
export function seriesAt(t: Timeseries, style: SeriesStyle, idx: number, y: number): number {
  if (style === 'stacked-bar') {
    let acc = 0;
    for (let k = 0; k < t.ys.length; k++) {
      acc += t.ys[k][idx] ?? 0;
      if (y <= acc) return k;
    }
    return t.ys.length - 1;
  }
  let best = 0;
  t.ys.forEach((s, k) => {
    if (Math.abs((s[idx] ?? Infinity) - y) < Math.abs((t.ys[best][idx] ?? Infinity) - y)) best = k;
  });
  return best;
}
