import type { PanelThreshold } from '../../../../src/control/records';
import { count } from '../../ui/format';
import { Icon } from '../../ui/icons';

/** Colour names a threshold may use, in the shades the charts use; any other CSS colour is taken as it is. */
const NAMED: Record<string, string> = {
  red: '#ef4444',
  orange: '#f97316',
  yellow: '#eab308',
  amber: '#f59e0b',
  green: '#10b981',
  blue: '#3b7cf6',
  purple: '#8b5cf6',
  grey: '#64748b',
  gray: '#64748b',
};

/** The colour of the highest threshold at or below `v` (none below: the text colour). */
export function thresholdColor(v: number, thresholds: PanelThreshold[] = []): string | undefined {
  const hit = [...thresholds]
    .sort((a, b) => a.value - b.value)
    .filter((t) => v >= t.value)
    .at(-1);
  return hit ? (NAMED[hit.color.toLowerCase()] ?? hit.color) : undefined;
}

/** The number a single-value panel shows: the first number of the first row, or the events matched. */
export function singleValue(a: { columns?: string[]; rows?: unknown[][]; meta: { matched: number } }): number | null {
  if (!a.columns) return a.meta.matched;
  const row = a.rows?.[0];
  const v = row?.find((x) => typeof x === 'number');
  return typeof v === 'number' ? v : row ? null : 0;
}

/**
 * One big number, coloured by its thresholds, with its change against the previous period of the
 * same length when the panel asks for a trend (`previous` undefined: still loading; null: none).
 */
export function SingleViz({
  value,
  previous,
  trend,
  thresholds,
  label,
  onDrill,
}: {
  value: number | null;
  previous: number | null | undefined;
  trend: boolean;
  thresholds?: PanelThreshold[];
  label: string;
  onDrill: () => void;
}) {
  if (value === null) return <p className="viz-empty muted">The answer has no number to show.</p>;
  const color = thresholdColor(value, thresholds);
  const delta = previous === null || previous === undefined ? null : value - previous;
  const pct = delta !== null && previous ? (100 * delta) / Math.abs(previous) : null;
  return (
    <div className="viz-single">
      <button
        className="viz-single-value"
        style={color ? { color } : undefined}
        onClick={onDrill}
        title="Search these events"
        data-testid="single-value"
        data-value={value}
        aria-label={`${label}: ${count(value)}`}
      >
        {count(value)}
      </button>
      {trend && (
        <div className="viz-trend" data-testid="trend" data-previous={previous ?? ''}>
          {previous === undefined ? (
            <span className="muted">…</span>
          ) : delta === null ? (
            <span className="muted">no previous period</span>
          ) : (
            <>
              <span className={delta > 0 ? 'trend-up' : delta < 0 ? 'trend-down' : 'trend-flat'}>
                {delta !== 0 && <Icon name={delta > 0 ? 'arrowUp' : 'arrowDown'} size={13} />}
                {pct === null ? (delta > 0 ? '+' : '') + count(delta) : `${pct > 0 ? '+' : ''}${pct.toFixed(1)}%`}
              </span>
              <span className="muted"> vs previous period ({count(previous!)})</span>
            </>
          )}
        </div>
      )}
    </div>
  );
}
