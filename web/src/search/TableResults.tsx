import { useMemo, useState } from 'react';
import { count, localTime, valueText } from '../ui/format';
import { Icon } from '../ui/icons';

interface Props {
  columns: string[];
  rows: unknown[][];
}

const SHOWN = 2000;

/** A time as the API writes it (RFC 3339 UTC with microseconds): shown in the browser's zone, as the events are. */
const isTime = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v);

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return valueText(a).localeCompare(valueText(b), undefined, { numeric: true });
}

/** A table result (stats, timechart, top, table…), sortable by any column. */
export function TableResults({ columns, rows }: Props) {
  const [sort, setSort] = useState<{ col: number; desc: boolean } | null>(null);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const out = [...rows].sort((x, y) => compare(x[sort.col], y[sort.col]));
    return sort.desc ? out.reverse() : out;
  }, [rows, sort]);
  const numeric = columns.map(
    (_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === 'number'),
  );
  const click = (i: number) =>
    setSort((s) => (s && s.col === i ? { col: i, desc: !s.desc } : { col: i, desc: numeric[i] }));
  return (
    <div className="table-scroll" data-testid="table-results">
      <table className="data-table">
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th
                key={c}
                className={numeric[i] ? 'num' : ''}
                aria-sort={sort?.col === i ? (sort.desc ? 'descending' : 'ascending') : 'none'}
              >
                <button onClick={() => click(i)}>
                  {c}
                  {sort?.col === i && <Icon name={sort.desc ? 'arrowDown' : 'arrowUp'} size={12} />}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.slice(0, SHOWN).map((r, j) => (
            <tr key={j}>
              {r.map((v, i) => (
                <td key={i} className={numeric[i] ? 'num mono' : 'mono'} title={isTime(v) ? `${v} (UTC)` : undefined}>
                  {typeof v === 'number' ? count(v) : isTime(v) ? localTime(v) : valueText(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > SHOWN && (
        <p className="muted small table-note">
          Showing {count(SHOWN)} of {count(rows.length)} rows; export for all of them.
        </p>
      )}
    </div>
  );
}
