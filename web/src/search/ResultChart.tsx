import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { numericColumns, timechartData } from './chart-data';
import { count, localTime, valueText } from '../ui/format';
import { axisStyle, seriesColor, useThemeKey } from '../ui/palette';

interface Props {
  columns: string[];
  rows: unknown[][];
  /** A timechart: lines over `_time`; otherwise bars per row. */
  timechart: boolean;
}

const MAX_BARS = 60;
const MAX_SERIES = 12;
/**
 * Lines closer than this many pixels a point are drawn 1 px wide: Chromium rasterises a canvas
 * without a GPU in software, where a 2 px stroke over 10,000 zigzagging points took 250-600 ms to
 * paint against 20-35 ms at 1 px (a hairline); at that density 2 px only blurs the spikes together.
 */
const DENSE_PX = 4;

type Built = { opts: uPlot.Options; data: uPlot.AlignedData };

function buildTimechart(columns: string[], rows: unknown[][], nums: number[], width: number): Built {
  const axis = axisStyle();
  const drawn = nums.slice(0, MAX_SERIES);
  const { xs, ys, totals } = timechartData(columns, rows, drawn);
  const lineWidth = rows.length * DENSE_PX > width ? 1 : 2;
  const series = drawn.map((c, k) => ({
    label: columns[c],
    stroke: seriesColor(columns[c], k),
    width: lineWidth,
    points: { show: rows.length < 60 },
    // the legend reads without hovering: each series' total, and the value under the cursor when there is one
    value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? `total ${count(totals[k])}` : count(v)),
  }));
  return {
    opts: {
      width,
      height: 320,
      legend: { show: true, live: true },
      scales: { x: { time: true } },
      axes: [axis, { ...axis, size: 56 }],
      series: [
        {
          label: 'Time',
          value: (_u: uPlot, v: number | null) =>
            v === null || v === undefined ? 'all' : localTime(new Date(v * 1000).toISOString()).slice(0, 16),
        },
        ...series,
      ],
    },
    data: [xs, ...ys],
  };
}

function build(
  columns: string[],
  rows: unknown[][],
  nums: number[],
  timechart: boolean,
  width: number,
  metric: number,
): Built | null {
  if (nums.length === 0 || rows.length === 0) return null;
  if (timechart) return buildTimechart(columns, rows, nums, width);
  const axis = axisStyle();
  const labelCols = columns.map((_, i) => i).filter((i) => !nums.includes(i));
  const shown = rows.slice(0, MAX_BARS);
  const labels = shown.map((r) => (labelCols.length ? labelCols.map((i) => valueText(r[i])).join(' · ') : ''));
  // one metric at a time: bars of different units on one axis would hide each other
  const col = nums.includes(metric) ? metric : nums[0];
  const ys = shown.map((r) => (typeof r[col] === 'number' ? r[col] : null));
  const max = Math.max(0, ...ys.map((y) => y ?? 0));
  const color = seriesColor(columns[col], 0);
  const idx = shown.map((_, i) => i);
  return {
    opts: {
      width,
      height: 320,
      legend: { show: false },
      cursor: { points: { show: false } },
      scales: {
        x: { time: false, range: () => [-0.6, shown.length - 0.4] },
        y: { range: () => [0, max > 0 ? max * 1.08 : 1] },
      },
      axes: [
        {
          ...axis,
          grid: { show: false },
          size: 64,
          rotate: -30,
          splits: () => idx,
          values: (_u, vals) => vals.map((v) => (labels[v] ?? '').slice(0, 24)),
        },
        { ...axis, size: 56 },
      ],
      series: [
        {},
        {
          label: columns[col],
          fill: color,
          stroke: color,
          width: 0,
          paths: uPlot.paths.bars!({ size: [0.7, 80], align: 0 }),
          points: { show: false },
        },
      ],
    },
    data: [idx, ys],
  };
}

/** A table result drawn: lines for a timechart, bars for stats/top (the first 60 rows). */
export function ResultChart({ columns, rows, timechart }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [unsupported, setUnsupported] = useState(false);
  const nums = useMemo(() => numericColumns(columns, rows), [columns, rows]);
  const [metric, setMetric] = useState(nums[0] ?? -1);
  const theme = useThemeKey();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let width = el.clientWidth;
    const built = build(columns, rows, nums, timechart, width, metric);
    setUnsupported(!built);
    if (!built) return;
    const u = new uPlot(built.opts, built.data, el);
    // the observer also calls back once at the start: with the width unchanged, a second full draw would only cost
    const ro = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      u.setSize({ width, height: 320 });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
    };
    // theme: the canvas keeps the colours it was drawn with
  }, [columns, rows, nums, timechart, metric, theme]);
  return (
    <div className="result-chart" data-testid="result-chart">
      {!timechart && nums.length > 1 && (
        <div className="tabs small chart-metric" role="tablist" aria-label="Column to draw">
          {nums.map((c) => (
            <button
              key={c}
              role="tab"
              aria-selected={metric === c}
              className={metric === c ? 'on' : ''}
              onClick={() => setMetric(c)}
            >
              {columns[c]}
            </button>
          ))}
        </div>
      )}
      <div ref={box} />
      {unsupported && <p className="muted">This result has no numeric column to draw.</p>}
      {!timechart && rows.length > MAX_BARS && <p className="muted small">The first {MAX_BARS} rows are drawn.</p>}
    </div>
  );
}
