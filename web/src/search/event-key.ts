import type { LogEvent } from '../api/types';

/**
 * A key naming one event's content, for de-duplicating live-tail pages and finding an event again
 * in its context. Events have no stored id; identical events at the same instant share a key.
 */
export function eventKey(e: LogEvent): string {
  return `${e.time}\u0000${e.env}\u0000${e.index}\u0000${e.host}\u0000${e.source}\u0000${e.message}\u0000${JSON.stringify(e.fields)}`;
}
