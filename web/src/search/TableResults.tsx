import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { count, localTime, valueText } from '../ui/format';
import { Icon } from '../ui/icons';

interface Props {
  columns: string[];
  rows: unknown[][];
  /** A row's click or Enter (a dashboard's drill-down): rows become focusable when given. */
  onRow?: (row: unknown[]) => void;
}

const SHOWN = 2000;
/** A row of one line (12.5 px text, 5 px padding, a border); rows are measured once drawn. */
const ROW_PX = 28;

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

/** A row spanning the table, standing in for the rows above or below the window. */
function Spacer({ height, span }: { height: number; span: number }) {
  return height > 0 ? (
    <tr aria-hidden="true" className="table-spacer">
      <td colSpan={span} style={{ height, padding: 0, border: 0 }} />
    </tr>
  ) : null;
}

/**
 * A table result (stats, timechart, top, table…), sortable by any column. Only the rows in view
 * (and a margin) are in the DOM: 1,000 rows of a timechart by 10 hosts are 11,000 cells, which took
 * 0.5-0.7 s to build and lay out, where the rows in view take a few ms.
 */
export function TableResults({ columns, rows, onRow }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [sort, setSort] = useState<{ col: number; desc: boolean } | null>(null);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const out = [...rows].sort((x, y) => compare(x[sort.col], y[sort.col]));
    return sort.desc ? out.reverse() : out;
  }, [rows, sort]);
  const numeric = useMemo(
    () => columns.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === 'number')),
    [columns, rows],
  );
  const shown = Math.min(sorted.length, SHOWN);
  // as in EventsList: the virtualizer's functions change with every scroll, nothing memoises them
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({
    count: shown,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: 20,
  });
  const items = v.getVirtualItems();
  const above = items[0]?.start ?? 0;
  const below = v.getTotalSize() - (items.at(-1)?.end ?? 0);
  const click = (i: number) =>
    setSort((s) => (s && s.col === i ? { col: i, desc: !s.desc } : { col: i, desc: numeric[i] }));
  return (
    <div className="table-scroll" data-testid="table-results" ref={scroller}>
      <table className="data-table" aria-rowcount={shown + 1}>
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
          <Spacer height={above} span={columns.length} />
          {items.map((item) => (
            <tr
              key={item.key}
              data-index={item.index}
              ref={v.measureElement}
              aria-rowindex={item.index + 2}
              {...(onRow && {
                className: 'row-link',
                tabIndex: 0,
                onClick: () => onRow(sorted[item.index]),
                onKeyDown: (e: React.KeyboardEvent) => e.key === 'Enter' && onRow(sorted[item.index]),
              })}
            >
              {sorted[item.index].map((x, i) => (
                <td key={i} className={numeric[i] ? 'num mono' : 'mono'} title={isTime(x) ? `${x} (UTC)` : undefined}>
                  {typeof x === 'number' ? count(x) : isTime(x) ? localTime(x) : valueText(x)}
                </td>
              ))}
            </tr>
          ))}
          <Spacer height={below} span={columns.length} />
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
