import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import { count, localTime, valueText } from '../ui/format';
import { axisStyle, seriesColor } from '../ui/palette';

interface Props {
  columns: string[];
  rows: unknown[][];
  /** A timechart: lines over `_time`; otherwise bars per row. */
  timechart: boolean;
}

const MAX_BARS = 60;

function numericCols(columns: string[], rows: unknown[][]): number[] {
  return columns
    .map((_, i) => i)
    .filter(
      (i) =>
        columns[i] !== '_time' &&
        rows.some((r) => typeof r[i] === 'number') &&
        rows.every((r) => r[i] === null || typeof r[i] === 'number'),
    );
}

function build(
  columns: string[],
  rows: unknown[][],
  timechart: boolean,
  width: number,
  metric: number,
): { opts: uPlot.Options; data: uPlot.AlignedData } | null {
  const nums = numericCols(columns, rows);
  if (nums.length === 0 || rows.length === 0) return null;
  const axis = axisStyle();
  const legend = { show: true, live: true };
  if (timechart) {
    const ti = columns.indexOf('_time');
    const xs = rows.map((r) => Date.parse(String(r[ti])) / 1000);
    const series = nums.slice(0, 12).map((c, k) => {
      const total = rows.reduce((n: number, r) => n + (typeof r[c] === 'number' ? r[c] : 0), 0);
      return {
        label: columns[c],
        stroke: seriesColor(columns[c], k),
        width: 2,
        points: { show: rows.length < 60 },
        // the legend reads without hovering: each series' total, and the value under the cursor when there is one
        value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? `total ${count(total)}` : count(v)),
      };
    });
    return {
      opts: {
        width,
        height: 320,
        legend,
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
      data: [xs, ...nums.slice(0, 12).map((c) => rows.map((r) => (typeof r[c] === 'number' ? r[c] : null)))],
    };
  }
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
  const nums = numericCols(columns, rows);
  const [metric, setMetric] = useState(nums[0] ?? -1);
  useEffect(() => {
    if (!box.current) return;
    const built = build(columns, rows, timechart, box.current.clientWidth, metric);
    setUnsupported(!built);
    if (!built) return;
    const u = new uPlot(built.opts, built.data, box.current);
    const ro = new ResizeObserver(() => u.setSize({ width: box.current!.clientWidth, height: 320 }));
    ro.observe(box.current);
    return () => {
      ro.disconnect();
      u.destroy();
    };
  }, [columns, rows, timechart, metric]);
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
