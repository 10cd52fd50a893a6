import { setField, type FieldValue, type LogEvent } from '../../events/event.js';
import { cutUtf8, DEFAULT_EVENT_LIMITS, TIME_ORIGINAL_FIELD, TRUNCATED_FIELD } from '../../events/limits.js';
import { MAX_EVENT_US, MIN_EVENT_US } from '../../events/timestamp.js';

// What the store can hold, enforced where an event becomes a WAL line (batch-encode.ts) and where
// an old segment is rewritten (segment-repair.ts). The ingest routes have their own, stricter
// limits at the door; this is the store's own guard for whatever reaches it another way (older
// versions' WAL, internal writers), so no line can make a segment unreadable or unsealable.

/**
 * Longest WAL line DuckDB reads with its default `maximum_object_size` (16 MiB), with room to
 * spare. Raising that limit is no way out: DuckDB sizes its read buffers by it (2 × per thread),
 * and a 64 MiB body of control characters is a 384 MiB line once JSON-escaped.
 */
export const WAL_LINE_MAX_BYTES = 8 * 1024 * 1024;
/** SVC_MAX_EVENT_BYTES' default, for encoders that run without the config (decode workers). */
export const DEFAULT_MAX_EVENT_BYTES = DEFAULT_EVENT_LIMITS.maxEventBytes;

export interface GuardOptions {
  /** A message (or string field) longer than this is cut when the line is too long (SVC_MAX_EVENT_BYTES). */
  maxEventBytes: number;
  /** The time given to an event whose own time is outside years 1..9999 (arrival, or the segment's). */
  fallbackUs: number;
}

/** True when `us` is an event time the store holds as it is. */
export function timeInRange(us: number): boolean {
  return us >= MIN_EVENT_US && us <= MAX_EVENT_US; // false for NaN too
}

/**
 * The WAL line of `ev`, after making it fit: a time outside years 1..9999 becomes
 * `o.fallbackUs` with the original in field `time_original`; a line over WAL_LINE_MAX_BYTES has
 * its long strings cut at a UTF-8 boundary and field `svc_truncated` set to its original size in
 * bytes. Mutates `ev`. Hot path: two comparisons and a length test for an ordinary event.
 */
export function guardedLine(ev: LogEvent, o: GuardOptions): string {
  guardTime(ev, o.fallbackUs);
  let line = JSON.stringify(ev);
  // JSON.stringify writes a lone surrogate as a \udXXX escape, which DuckDB's JSON reader refuses:
  // the line would read as NULLs, an acknowledged event gone from search and its segment unsealable
  if (line.includes('\\ud') && LONE_SURROGATE.test(line)) line = JSON.stringify(wellFormedEvent(ev));
  // fast path: 3 UTF-8 bytes per UTF-16 unit at most, so a short string cannot be too long
  if (line.length * 3 <= WAL_LINE_MAX_BYTES) return line;
  const bytes = Buffer.byteLength(line);
  return bytes <= WAL_LINE_MAX_BYTES ? line : truncatedLine(ev, bytes, o.maxEventBytes);
}

/**
 * The time part of the guard, also applied where a decode worker writes a part (parts/part-build.ts):
 * a time outside years 1..9999 becomes `fallbackUs` with the original in field `time_original`; a
 * fraction of a microsecond is cut (the column is a BIGINT of microseconds). Mutates `ev`.
 */
export function guardTime(ev: LogEvent, fallbackUs: number): void {
  if (!timeInRange(ev.timeUs)) {
    ev.fields = { ...ev.fields, [TIME_ORIGINAL_FIELD]: originalTime(ev.timeUs) };
    ev.timeUs = fallbackUs;
  } else if (!Number.isSafeInteger(ev.timeUs)) ev.timeUs = Math.trunc(ev.timeUs);
}

/** A \udXXX surrogate escape in JSON text not itself escaped (JSON.stringify escapes only lone ones). */
const LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;
const LONE_SURROGATE_CHAR = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE_CHAR, '\ufffd');
}

/** `ev` with every lone surrogate in its strings and field names replaced by U+FFFD, as invalid UTF-8 is. Mutates `ev`. */
function wellFormedEvent(ev: LogEvent): LogEvent {
  ev.message = wellFormed(ev.message);
  ev.host = wellFormed(ev.host);
  ev.source = wellFormed(ev.source);
  ev.sourcetype = wellFormed(ev.sourcetype);
  const fields: Record<string, FieldValue> = {};
  for (const k in ev.fields) {
    const v = ev.fields[k];
    setField(fields, wellFormed(k), typeof v === 'string' ? wellFormed(v) : v);
  }
  ev.fields = fields;
  return ev;
}

function originalTime(us: number): string {
  const ms = Math.floor(us / 1000);
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(us);
}

/** Cuts the long strings of `ev` (halving the cut until the line fits), else drops its fields. */
function truncatedLine(ev: LogEvent, originalBytes: number, maxEventBytes: number): string {
  const original = { message: ev.message, fields: ev.fields };
  for (let cut = Math.max(1024, maxEventBytes); cut >= 1024; cut = Math.floor(cut / 2)) {
    ev.message = cutUtf8(original.message, cut);
    const fields: Record<string, FieldValue> = {};
    for (const [k, v] of Object.entries(original.fields))
      setField(fields, k, typeof v === 'string' ? cutUtf8(v, cut) : v);
    fields[TRUNCATED_FIELD] = originalBytes;
    ev.fields = fields;
    const line = JSON.stringify(ev);
    if (Buffer.byteLength(line) <= WAL_LINE_MAX_BYTES) return line;
  }
  // too many fields to fit even cut short: the message (cut) is kept, the fields are not
  const kept = original.fields[TIME_ORIGINAL_FIELD];
  ev.fields = {
    [TRUNCATED_FIELD]: originalBytes,
    ...(typeof kept === 'string' ? { [TIME_ORIGINAL_FIELD]: kept } : {}),
  };
  ev.message = cutUtf8(original.message, 1024);
  return JSON.stringify(ev);
}
