import type { LogEvent } from '../events/event.js';
import { fitEvent, type EventLimits } from '../events/limits.js';
import type { Writer } from '../events/writer.js';
import { SvcError } from '../errors/svc-error.js';

/**
 * Where `collect` writes (server.ts: the storage writer behind the ingest limits). Resolves once
 * every event is in the write-ahead log and fsynced, as an acknowledged ingest is.
 */
export interface EventSink {
  /** The host of the events when collect names none (Splunk: the search head's name). */
  host: string;
  write(events: LogEvent[]): Promise<void>;
}

/**
 * The sink over the one writer of ingest: each event passes the limits every protocol's events pass
 * (size, field count; events/limits.ts), and the batch waits for room in the queue as native ingest does.
 */
export function eventSinkOf(writer: Writer, limits: EventLimits, host: string): EventSink {
  return {
    host,
    async write(events) {
      for (const e of events) {
        const refused = fitEvent(e, limits);
        if (refused !== undefined)
          throw new SvcError('invalid_query', `collect: ${refused}`, { details: { pipe: 'collect' } });
      }
      await writer.write(events, { wait: true });
    },
  };
}
