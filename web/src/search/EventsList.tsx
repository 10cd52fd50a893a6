import { useVirtualizer } from '@tanstack/react-virtual';
import { forwardRef, useImperativeHandle, useRef } from 'react';
import type { LogEvent } from '../api/types';
import { localTime, utcTitle } from '../ui/format';
import { Icon } from '../ui/icons';
import { EventDetail } from './EventDetail';
import { Message } from './Message';

interface Props {
  events: LogEvent[];
  /** Keys of expanded events. */
  expanded: Set<number>;
  onToggle: (i: number) => void;
  wrap: boolean;
  terms: RegExp | null;
  find: RegExp | null;
  /** Row of the current find match. */
  current: number | null;
  showIndex: boolean;
  showHost: boolean;
  onFilter: (field: string, value: unknown, exclude: boolean) => void;
  onContext: (event: LogEvent) => void;
  /** The field list's names: an open event shows those found in its message too. */
  fieldNames?: string[];
  footer?: React.ReactNode;
}

/** The event's level or severity, lowercased, for the colour mark at the row's start. */
function levelOf(e: LogEvent): string {
  const v = e.fields.level ?? e.fields.severity ?? e.fields.log_level ?? e.fields['log.level'];
  return typeof v === 'string' ? v.toLowerCase().replace(/[^a-z]/g, '') : 'none';
}

export interface EventsListHandle {
  scrollTo(i: number): void;
}

/**
 * The events, newest first, in a virtualised list: only the rows in view are in the DOM, so ten
 * thousand events scroll as smoothly as ten. Rows measure themselves (wrapped and expanded rows
 * are taller). The browser's Ctrl+F cannot see rows out of view: the page has its own find.
 */
export const EventsList = forwardRef<EventsListHandle, Props>(function EventsList(p, ref) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: p.events.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => (p.wrap ? 44 : 26),
    overscan: 12,
    getItemKey: (i) => i,
  });
  useImperativeHandle(ref, () => ({ scrollTo: (i) => v.scrollToIndex(i, { align: 'center' }) }), [v]);

  return (
    <div className="events-scroll" ref={scroller} data-testid="events">
      <div className="events-inner" style={{ height: v.getTotalSize() }}>
        {v.getVirtualItems().map((item) => {
          const e = p.events[item.index];
          const open = p.expanded.has(item.index);
          const cls = ['event-row', open ? 'open' : '', p.wrap ? 'wrap' : '', p.current === item.index ? 'current' : '']
            .filter(Boolean)
            .join(' ');
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={v.measureElement}
              className={cls}
              style={{ transform: `translateY(${item.start}px)` }}
              onKeyDown={(ev) => {
                // Esc in an open event (its row or its detail) closes it, the focus back on its row
                if (ev.key !== 'Escape' || !open) return;
                ev.preventDefault();
                ev.currentTarget.querySelector<HTMLElement>('.event-line')?.focus();
                p.onToggle(item.index);
              }}
            >
              <div
                className="event-line"
                role="button"
                tabIndex={0}
                aria-expanded={open}
                onClick={() => p.onToggle(item.index)}
                onKeyDown={(ev) => {
                  if (ev.key === 'Enter' || ev.key === ' ') {
                    ev.preventDefault();
                    p.onToggle(item.index);
                  }
                }}
              >
                <span className={`level level-${levelOf(e)}`} />
                <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} className="event-chevron" />
                <time className="event-time" title={utcTitle(e.time)} dateTime={e.time}>
                  {localTime(e.time)}
                </time>
                {p.showHost && (
                  <span className="event-host" title={e.host}>
                    {e.host}
                  </span>
                )}
                {p.showIndex && <span className="event-index">{e.index}</span>}
                <span className="event-message">
                  <Message text={e.message} terms={p.terms} find={p.find} />
                </span>
              </div>
              {open && (
                <EventDetail event={e} onFilter={p.onFilter} onContext={p.onContext} fieldNames={p.fieldNames} />
              )}
            </div>
          );
        })}
      </div>
      {p.footer}
    </div>
  );
});
