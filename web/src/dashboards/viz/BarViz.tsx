import { count } from '../../ui/format';
import { categoriesOf } from './categories';
import type { Drill } from './types';

/** A stats answer as horizontal bars, largest to scale; a bar is a button that drills down to its events. */
export function BarViz({ columns, rows, onDrill }: { columns: string[]; rows: unknown[][]; onDrill: Drill }) {
  const c = categoriesOf(columns, rows);
  if (!c) return <p className="viz-empty muted">Nothing to draw: the answer has no number column.</p>;
  const max = Math.max(1, ...c.items.map((i) => i.value));
  return (
    <ul className="viz-bars" aria-label={`${c.metric} by ${columns.filter((x) => x !== c.metric).join(', ')}`}>
      {c.items.map((it) => (
        <li key={it.label}>
          <button
            className="viz-bar"
            onClick={() => onDrill(it.filters)}
            title={`Search the events of ${it.label}`}
            data-testid="bar"
            data-label={it.label}
            data-value={it.value}
          >
            <span className="viz-bar-label">{it.label}</span>
            <span className="viz-bar-track">
              <span className="viz-bar-fill" style={{ width: `${(100 * it.value) / max}%` }} />
            </span>
            <span className="viz-bar-value">{count(it.value)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
