import { count } from '../../ui/format';
import { categoriesOf, type Category } from './categories';
import type { Drill } from './types';

/** An SVG arc from angle a to b (radians, 0 at twelve o'clock) of a ring between radii r and r0. */
function arc(a: number, b: number, r: number, r0: number): string {
  const p = (ang: number, rad: number) => `${50 + rad * Math.sin(ang)} ${50 - rad * Math.cos(ang)}`;
  const large = b - a > Math.PI ? 1 : 0;
  return `M ${p(a, r)} A ${r} ${r} 0 ${large} 1 ${p(b, r)} L ${p(b, r0)} A ${r0} ${r0} 0 ${large} 0 ${p(a, r0)} Z`;
}

/** Each category's ring segment, clockwise from twelve o'clock in the answer's order. */
function slicesOf(items: Category[], total: number): (Category & { d: string })[] {
  const out: (Category & { d: string })[] = [];
  let at = 0;
  for (const it of items) {
    const a = (at / total) * 2 * Math.PI;
    at += it.value;
    // one slice of all: an arc cannot start and end at the same point, so it stops just short
    const b = Math.min((at / total) * 2 * Math.PI, a + 2 * Math.PI - 1e-4);
    out.push({ ...it, d: arc(a, b, 48, 30) });
  }
  return out;
}

/**
 * A stats answer as a donut with its total in the middle, and a legend of values and shares. A slice
 * or its legend entry (a button, for the keyboard) drills down to its events.
 */
export function PieViz({ columns, rows, onDrill }: { columns: string[]; rows: unknown[][]; onDrill: Drill }) {
  const c = categoriesOf(columns, rows);
  if (!c) return <p className="viz-empty muted">Nothing to draw: the answer has no number column.</p>;
  const items = c.items.filter((i) => i.value > 0);
  const total = items.reduce((n, i) => n + i.value, 0);
  const slices = slicesOf(items, total);
  return (
    <div className="viz-pie">
      <svg viewBox="0 0 100 100" className="viz-pie-svg" aria-hidden="true">
        {slices.map((s) => (
          <path key={s.label} d={s.d} fill={s.color} onClick={() => onDrill(s.filters)}>
            <title>{`${s.label}: ${count(s.value)}`}</title>
          </path>
        ))}
        <text x="50" y="49" className="viz-pie-total">
          {count(total)}
        </text>
        <text x="50" y="59" className="viz-pie-caption">
          {c.metric}
        </text>
      </svg>
      <ul className="viz-pie-legend" aria-label={`${c.metric} by ${columns.filter((x) => x !== c.metric).join(', ')}`}>
        {slices.map((s) => (
          <li key={s.label}>
            <button onClick={() => onDrill(s.filters)} data-testid="slice" data-label={s.label} data-value={s.value}>
              <span className="swatch" style={{ background: s.color }} />
              <span className="viz-legend-name">{s.label}</span>
              <span className="viz-legend-total">{count(s.value)}</span>
              <span className="muted small">{((100 * s.value) / total).toFixed(1)}%</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
