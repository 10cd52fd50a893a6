import type { LogEvent } from '../../events/event.js';
import { LiveSegment, type LivePartition } from './live-segment.js';
import { walLine } from './wal-line.js';

/**
 * A batch of events already in WAL form: their lines (walLine, each ending in LF) and the live
 * accounting of those lines per env/index/day. Built by encodeBatch on whichever thread decoded
 * the events (a native ingest decode worker, or the writer itself), so committing it costs the
 * writer's thread one memcpy and a merge of a few partition summaries, nothing per event.
 * Structured-cloneable: `wal` can be transferred between threads.
 */
export interface EncodedBatch {
  readonly kind: 'encoded';
  count: number;
  wal: Uint8Array;
  parts: LivePartition[];
}

/** A batch as the Writer accepts it. */
export type WriteBatch = LogEvent[] | EncodedBatch;

/** Encodes events for the WAL. Pure: safe on any thread. */
export function encodeBatch(events: LogEvent[]): EncodedBatch {
  const acc = new LiveSegment(0, '');
  const lines: string[] = new Array(events.length);
  let chars = 0;
  for (let i = 0; i < events.length; i++) {
    const ev = events[i];
    // the WAL column is BIGINT: a fractional time would make the line unreadable
    if (!Number.isSafeInteger(ev.timeUs)) ev.timeUs = Math.trunc(ev.timeUs) || 0;
    lines[i] = walLine(ev);
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
  return { kind: 'encoded', count: events.length, wal: buf.subarray(0, off), parts: [...acc.partitions.values()] };
}

export function batchSize(b: WriteBatch): number {
  return Array.isArray(b) ? b.length : b.count;
}

/** The events of a batch (tests and Writers that inspect events; the storage engine never needs it). */
export function eventsOf(b: WriteBatch): LogEvent[] {
  if (Array.isArray(b)) return b;
  const text = Buffer.from(b.wal.buffer, b.wal.byteOffset, b.wal.byteLength).toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as LogEvent);
}
