import type { LogEvent } from '../../events/event.js';
import type { EncodedBatch, WriteBatch } from '../../events/writer.js';
import { LiveSegment, type LivePartition } from './live-segment.js';
import { DEFAULT_MAX_EVENT_BYTES, guardedLine } from './event-guard.js';

export { batchSize, type WriteBatch } from '../../events/writer.js';

/**
 * The inside of events/writer.ts's opaque EncodedBatch: the events' WAL lines (walLine, each
 * ending in LF) and the live accounting of those lines per env/index/day. Built by encodeBatch on
 * whichever thread decoded the events (a decode worker, or the writer itself), so committing it
 * costs the writer's thread one memcpy and a merge of a few partition summaries, nothing per event.
 * Structured-cloneable: `wal` can be transferred between threads.
 */
export interface WalBatch extends EncodedBatch {
  wal: Uint8Array;
  parts: LivePartition[];
  /** Why the decode worker that encoded it could not write it as parts, when it tried (write-path.ts reports it). */
  partsFailed?: string;
}

/** Why a decode worker could not write `b` as parts, when it is a WAL batch that one tried to. */
export function partsFailedOf(b: WriteBatch): string | undefined {
  return !Array.isArray(b) && 'wal' in b ? (b as WalBatch).partsFailed : undefined;
}

/** A batch in WAL form: LogEvents are encoded now; an EncodedBatch was made by encodeBatch, its only maker. */
export function walBatch(b: WriteBatch, maxEventBytes = DEFAULT_MAX_EVENT_BYTES): WalBatch {
  if (!Array.isArray(b) && !('wal' in b)) throw new Error('BUG: a batch of parts has no WAL form');
  return Array.isArray(b) ? encodeBatch(b, maxEventBytes) : (b as WalBatch);
}

/**
 * Encodes events for the WAL. Pure: safe on any thread. Each line goes through the store's guard
 * (event-guard.ts): a time outside years 1..9999 becomes the arrival time, a line DuckDB could not
 * read is cut (SVC_MAX_EVENT_BYTES).
 */
export function encodeBatch(events: LogEvent[], maxEventBytes = DEFAULT_MAX_EVENT_BYTES): WalBatch {
  const acc = new LiveSegment(0, '');
  const lines = new Array<string>(events.length);
  const guard = { maxEventBytes, fallbackUs: Date.now() * 1000 };
  let chars = 0;
  for (let i = 0; i < events.length; i++) {
    const ev = events[i];
    lines[i] = guardedLine(ev, guard);
    chars += lines[i].length;
    acc.record(ev);
  }
  // one unpooled buffer (it may be transferred to another thread) sized for the worst case of
  // 3 UTF-8 bytes per UTF-16 unit, written line by line: measured cheaper than join + encode
  const buf = Buffer.allocUnsafeSlow(chars * 3 + events.length);
  let off = 0;
  for (const line of lines) {
    off += buf.write(line, off, 'utf8');
    buf[off++] = 10;
  }
  // the brand is type-only (events/writer.ts): storage, the only maker of encoded batches, stamps it here
  return {
    kind: 'encoded',
    count: events.length,
    wal: buf.subarray(0, off),
    parts: [...acc.partitions.values()],
  } as unknown as WalBatch;
}

/** The events of a batch (tests and Writers that inspect events; the storage engine never needs it). */
export function eventsOf(b: WriteBatch): LogEvent[] {
  if (Array.isArray(b)) return b;
  const { wal } = walBatch(b);
  const text = Buffer.from(wal.buffer, wal.byteOffset, wal.byteLength).toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as LogEvent);
}
