import { useEffect, useEffectEvent, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HistogramResult } from '../api/types';
import { count, localTime } from '../ui/format';
import { axisStyle, cssVar, seriesColor, useThemeKey } from '../ui/palette';

interface Props {
  data: HistogramResult | null;
  loading: boolean;
  /** A dragged range, in epoch milliseconds. */
  onZoom: (fromMs: number, toMs: number) => void;
  /** Events the live tail has brought since the search (0: none, or live is off). */
  liveCount?: number;
  /** The plot's height in pixels (a dashboard panel's body; the search page's is 150). */
  height?: number;
}

interface Hover {
  /** The histogram the cursor is over: a new one hides the tip until the cursor moves. */
  of: HistogramResult;
  /** Where the tip goes, kept inside the plot. */
  left: number;
  bucket: HistogramResult['buckets'][number];
}

/** Stacked bars need cumulative heights; uPlot draws series in order, so the tallest goes first. */
function plotData(h: HistogramResult): { data: uPlot.AlignedData; names: string[] } {
  const xs = h.buckets.map((b) => Date.parse(b.time) / 1000);
  if (!h.series || h.series.length === 0) return { data: [xs, h.buckets.map((b) => b.count)], names: ['events'] };
  const names = h.series;
  const cum: number[][] = names.map(() => []);
  h.buckets.forEach((b, j) => {
    let acc = 0;
    names.forEach((n, i) => {
      acc += b.series?.[n] ?? 0;
      cum[i][j] = acc;
    });
  });
  return { data: [xs, ...cum.reverse()], names: [...names].reverse() };
}

function options(
  h: HistogramResult,
  names: string[],
  width: number,
  onSelect: (u: uPlot) => void,
  onCursor: (u: uPlot) => void,
  height: number,
): uPlot.Options {
  const axis = axisStyle();
  const bars = uPlot.paths.bars!({ size: [0.92, 64], align: 1, gap: 1 });
  const ordered = h.series && h.series.length > 0 ? names : ['events'];
  return {
    width,
    height,
    padding: [8, 8, 0, 0],
    legend: { show: false },
    cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, y: false },
    select: { show: true, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      x: { time: true, range: (_u, min, max) => [min, max + h.spanSecs] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.08)] },
    },
    axes: [
      { ...axis, space: 80 },
      {
        ...axis,
        size: 48,
        space: 28,
        values: (_u, vals) => vals.map((v) => (v >= 1e6 ? `${v / 1e6}M` : v >= 1e3 ? `${v / 1e3}k` : String(v))),
      },
    ],
    series: [
      {},
      ...ordered.map((n) => {
        const i = h.series ? h.series.indexOf(n) : 0;
        const color = h.series && h.series.length > 0 ? seriesColor(n, i) : cssVar('--accent');
        return { label: n, fill: color, stroke: color, width: 0, paths: bars, points: { show: false } };
      }),
    ],
    hooks: { setSelect: [onSelect], setCursor: [onCursor] },
  };
}

/**
 * Matches over time (uPlot), stacked by a field when the search asks for one. Dragging across it
 * selects a range and hands it to onZoom, which re-runs the search with that range.
 */
export function Histogram({ data, loading, onZoom, liveCount = 0, height = 150 }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const theme = useThemeKey();
  // the latest onZoom, without redrawing the plot when the caller passes a new function
  const zoom = useEffectEvent(onZoom);

  useEffect(() => {
    plot.current?.destroy();
    plot.current = null;
    if (!data || data.buckets.length === 0 || !box.current) return;
    const { data: aligned, names } = plotData(data);
    const onSelect = (u: uPlot) => {
      if (u.select.width < 4) return;
      const a = u.posToVal(u.select.left, 'x') * 1000;
      const b = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
      u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
      zoom(Math.floor(a), Math.ceil(b));
    };
    const onCursor = (u: uPlot) => {
      const i = u.cursor.idx;
      if (i === null || i === undefined || u.cursor.left === undefined || u.cursor.left < 0) return setHover(null);
      const width = box.current?.clientWidth ?? 0;
      setHover({ of: data, left: Math.min(u.cursor.left + 56, width - 180), bucket: data.buckets[i] });
    };
    const el = box.current;
    let width = el.clientWidth;
    plot.current = new uPlot(options(data, names, width, onSelect, onCursor, height), aligned, el);
    // the observer also calls back once at the start: with the width unchanged, a second full draw would only cost
    const ro = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      plot.current?.setSize({ width, height });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [data, theme, height]);

  const tip = hover && hover.of === data ? hover : null;
  const empty = data !== null && data.buckets.every((b) => b.count === 0);
  return (
    <div className={loading ? 'histogram loading' : 'histogram'} data-testid="histogram">
      <div className="histogram-plot" ref={box} onMouseLeave={() => setHover(null)} />
      {empty && !loading && (
        <div className="histogram-empty muted">
          {liveCount > 0 ? 'Live events arrive below; the histogram shows the search' : 'No events in this range'}
        </div>
      )}
      {tip && data && (
        <div className="histogram-tip" style={{ left: tip.left }}>
          <div className="tip-time">{localTime(tip.bucket.time).slice(0, 19)}</div>
          <div className="tip-row">
            <strong>{count(tip.bucket.count)}</strong> events
          </div>
          {data.series?.map((s, i) =>
            tip.bucket.series?.[s] ? (
              <div className="tip-row" key={s}>
                <span className="swatch" style={{ background: seriesColor(s, i) }} />
                {s}: {count(tip.bucket.series[s])}
              </div>
            ) : null,
          )}
        </div>
      )}
      {data?.series && data.series.length > 0 && (
        <div className="histogram-legend">
          {data.series.map((s, i) => (
            <span key={s}>
              <span className="swatch" style={{ background: seriesColor(s, i) }} />
              {s}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
