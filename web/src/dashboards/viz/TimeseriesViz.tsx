import { useMemo } from 'react';
import type uPlot from 'uplot';
import { count } from '../../ui/format';
import { useThemeKey } from '../../ui/palette';
import { buildTimeseries, seriesAt, type SeriesStyle } from './timeseries';
import { UplotChart } from './UplotChart';
import type { Drill } from './types';

/**
 * A timechart answer drawn as lines, areas or stacked bars, one series per column (`timechart … by`),
 * with a legend of totals. A click drills down to the events of that bucket, in that series.
 */
export function TimeseriesViz({
  columns,
  rows,
  style,
  range,
  title,
  onDrill,
}: {
  columns: string[];
  rows: unknown[][];
  style: SeriesStyle;
  range: { from: string; to: string };
  title: string;
  onDrill: Drill;
}) {
  const theme = useThemeKey();
  // theme: the axes' colours are read from it when built
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const t = useMemo(() => buildTimeseries(columns, rows, style, range), [columns, rows, style, range, theme]);
  if (!t)
    return <p className="viz-empty muted">Nothing to draw: end the query with a timechart (| timechart count).</p>;
  const pick = (u: uPlot) => {
    const idx = u.cursor.idx;
    if (idx === null || idx === undefined || u.cursor.top === undefined) return;
    const k = seriesAt(t, style, idx, u.posToVal(u.cursor.top, 'y'));
    const from = t.xs[idx] * 1000;
    onDrill(t.series.length > 1 ? t.series[k].name : null, { from, to: from + t.spanSecs * 1000 });
  };
  return (
    <div className="viz-timeseries">
      <UplotChart
        built={t.built}
        onPick={pick}
        label={`${title}: ${t.series.map((s) => s.name).join(', ')} over time`}
      />
      <ul className="viz-legend" aria-label="Series">
        {t.series.map((s) => (
          <li key={s.name}>
            <span className="swatch" style={{ background: s.color }} />
            <span className="viz-legend-name">{s.name}</span>
            <span className="viz-legend-total" data-testid="series-total">
              {count(s.total)}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
