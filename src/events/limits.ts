import { SvcError } from '../errors/svc-error.js';
import { addUnique, CORE_FIELDS, setField, type FieldValue, type LogEvent } from './event.js';
import { inTimeWindow, type TimeContext } from './timestamp.js';

/**
 * Limits at the door, the same for every protocol (docs/ingest-limits.md): how big an event may be,
 * how many fields it may have, how deep its JSON may nest, which times it may carry, how its message
 * ends. Every decoder passes each event through `fitEvent` (and its time through `eventTime`) before
 * handing it on, so nothing the store cannot hold (a WAL line past DuckDB's read_json object size,
 * a year-10000 time) is ever acknowledged.
 */

/** The configurable limits, as plain data (decode jobs carry them to worker threads). */
export interface EventLimits {
  /** SVC_MAX_EVENT_BYTES: UTF-8 bytes of the message, host, source, sourcetype, every field name and string value. */
  maxEventBytes: number;
  /** SVC_MAX_EVENT_FIELDS. */
  maxFields: number;
  /** SVC_MAX_FUTURE_DRIFT_SECS: how far past now an event time may be. */
  maxFutureSecs: number;
}

export const DEFAULT_EVENT_LIMITS: EventLimits = Object.freeze({
  maxEventBytes: 1024 * 1024,
  maxFields: 1000,
  maxFutureSecs: 2 * 86_400,
});

/** Objects and arrays nested deeper than this are refused (Elasticsearch's index.mapping.depth.limit). */
export const MAX_DEPTH = 20;
/** The field a truncated event gets: its size in bytes before values were cut. */
export const TRUNCATED_FIELD = 'svc_truncated';
/** The field that keeps an event time that was not used (outside years 1-9999, or too far ahead). */
export const TIME_ORIGINAL_FIELD = 'time_original';

/** An event refused by a limit: every decoder catches it and answers it for that line or item only. */
export class EventLimitError extends SvcError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}

export function depthError(): EventLimitError {
  return new EventLimitError(`cannot store an event nested deeper than ${MAX_DEPTH} levels`);
}

/** True when `v` holds objects or arrays more than `levels` deep. Recurses at most levels + 1 deep. */
export function deeperThan(v: unknown, levels: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (levels <= 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (deeperThan(v[i], levels - 1)) return true;
    return false;
  }
  for (const k in v as Record<string, unknown>)
    if (deeperThan((v as Record<string, unknown>)[k], levels - 1)) return true;
  return false;
}

/**
 * JSON text of a value found `depth` levels down an event: refused (EventLimitError) rather than
 * stringified when it nests past MAX_DEPTH, so JSON.stringify can never overflow the stack.
 */
export function jsonText(v: unknown, depth: number): string {
  if (deeperThan(v, MAX_DEPTH - depth)) throw depthError();
  return JSON.stringify(v);
}

/**
 * The time an event takes: `us` when it lies in the window (years 1-9999, at most ctx.maxUs), else
 * the arrival time, with `original` (the value as it came) kept in `fields.time_original`.
 */
export function eventTime(
  us: number,
  original: FieldValue,
  arrivalUs: number,
  ctx: TimeContext,
  fields: Record<string, FieldValue>,
): number {
  if (inTimeWindow(us, ctx)) return us;
  addUnique(fields, TIME_ORIGINAL_FIELD, original);
  return arrivalUs;
}

const LF = 10;
const CR = 13;

/**
 * The message without the CRs and LFs that end it. They are line framing, not text: a CRLF file
 * sent as JSON or a `_bulk` document, Docker's `"log":"…\n"`, a syslog frame, a HEC event string
 * would otherwise store the same line differently by protocol, and `message="…"` would miss it.
 * CRs and LFs inside the text stay (docs/ingest-limits.md "Line ends").
 */
export function trimLineEnd(s: string): string {
  let e = s.length;
  while (e > 0) {
    const c = s.charCodeAt(e - 1);
    if (c !== LF && c !== CR) break;
    e--;
  }
  return s.slice(0, e);
}

/**
 * Checks one event against the field count and size limits; an event too big has its longest
 * string values cut (see cutToFit) and is kept. First trims the CRs and LFs that end its message
 * (trimLineEnd), the one line-end rule of every protocol. Returns undefined when the event may be stored
 * (maybe cut), else why not. Fast path: UTF-16 length × 3 bounds the UTF-8 size, so the exact
 * size is only measured for events within a factor of 3 of the limit.
 */
export function fitEvent(ev: LogEvent, limits: EventLimits): string | undefined {
  const last = ev.message.charCodeAt(ev.message.length - 1);
  if (last === LF || last === CR) ev.message = trimLineEnd(ev.message);
  let count = 0;
  let units = ev.message.length + ev.host.length + ev.source.length + ev.sourcetype.length;
  let oddNames = false;
  const fields = ev.fields;
  for (const k in fields) {
    count++;
    const v = fields[k];
    units += k.length + (typeof v === 'string' ? v.length : 0);
    if (k.length === 0 || k.includes('\u0000') || isCoreName(k)) oddNames = true;
  }
  if (oddNames) renameOddNames(ev);
  if (count > limits.maxFields)
    return `cannot store an event with ${count} fields: the limit is ${limits.maxFields} (SVC_MAX_EVENT_FIELDS)`;
  if (units * 3 <= limits.maxEventBytes) return undefined;
  return cutToFit(ev, limits.maxEventBytes);
}

/** The name an empty field name is stored under. */
export const EMPTY_NAME_FIELD = 'empty_name';

const CORE_LOWER = new Set<string>(CORE_FIELDS);
const CORE_TEXT_NAMES = new Set<string>(['message', 'host', 'source', 'sourcetype', 'env', 'index']);

function repeatsCore(ev: LogEvent, core: string, v: FieldValue): boolean {
  return (
    CORE_TEXT_NAMES.has(core) &&
    ev[core as 'message' | 'host' | 'source' | 'sourcetype' | 'env' | 'index'] === String(v)
  );
}

/**
 * True when `k` is a core column's name in any case (`HOST`, `Message`, `_TIME`): column names are
 * case-insensitive to DuckDB, so such a field would be hidden behind the core column. Fast path:
 * only names of a core name's length are lower-cased.
 */
function isCoreName(k: string): boolean {
  const n = k.length;
  return (n === 3 || n === 4 || n === 5 || n === 6 || n === 7 || n === 10) && CORE_LOWER.has(k.toLowerCase());
}

/**
 * A field name no column can carry is renamed, its value kept: empty → `empty_name` (SQL has no
 * empty identifier), each NUL → U+FFFD (a NUL ends DuckDB's SQL text), a core column's name in
 * any case → `<name>_user` (as flatten.ts renames the lower-case ones). Rare: only when fitEvent saw
 * such a name.
 */
function renameOddNames(ev: LogEvent): void {
  const fields: Record<string, FieldValue> = {};
  for (const k in ev.fields) {
    // a field that only repeats its core column (a Loki label `host` that became the host) adds nothing
    if (isCoreName(k) && repeatsCore(ev, k.toLowerCase(), ev.fields[k])) continue;
    let name = k.length === 0 ? EMPTY_NAME_FIELD : k.replace(/\u0000/g, '\ufffd');
    // an own key equal to a name made here by renaming is renamed in turn: no value is overwritten
    while (isCoreName(name) || Object.prototype.hasOwnProperty.call(fields, name)) name += '_user';
    setField(fields, name, ev.fields[k]);
  }
  ev.fields = fields;
}

/** The core text columns an event's own data may fill (a JSON `host`, a Loki label), cut like values. */
const CORE_TEXT = ['message', 'host', 'source', 'sourcetype'] as const;

interface Cuttable {
  /** A field's name, or (core: true) one of CORE_TEXT. */
  name: string;
  core: boolean;
  bytes: number;
}

/**
 * Cuts the longest string values (the message first among equals; host, source and sourcetype
 * count as values too, since an event's own data can fill them) down to one common length, at a
 * UTF-8 character boundary, until the event fits in `max` bytes with its `svc_truncated` field, as
 * Splunk's TRUNCATE does; the rest stays. Refuses an event whose field names alone do not fit.
 */
function cutToFit(ev: LogEvent, max: number): string | undefined {
  const values: Cuttable[] = CORE_TEXT.map((name) => ({ name, core: true, bytes: Buffer.byteLength(ev[name]) }));
  let fixed = TRUNCATED_FIELD.length;
  for (const k in ev.fields) {
    fixed += Buffer.byteLength(k);
    const v = ev.fields[k];
    if (typeof v === 'string') values.push({ name: k, core: false, bytes: Buffer.byteLength(v) });
  }
  let total = fixed;
  for (const c of values) total += c.bytes;
  if (total - TRUNCATED_FIELD.length <= max) return undefined;
  if (fixed > max)
    return `cannot store an event whose field names alone take ${fixed} bytes: the limit is ${max} (SVC_MAX_EVENT_BYTES)`;
  // stable sort: the message (first) stays ahead of values as long as it
  values.sort((a, b) => b.bytes - a.bytes);
  const level = cutLevel(values, total - max);
  const fields: Record<string, FieldValue> = { ...ev.fields };
  for (const c of values) {
    if (c.bytes <= level) break;
    if (c.core) ev[c.name as (typeof CORE_TEXT)[number]] = cutUtf8(ev[c.name as (typeof CORE_TEXT)[number]], level);
    else setField(fields, c.name, cutUtf8(fields[c.name] as string, level));
  }
  fields[TRUNCATED_FIELD] = total - TRUNCATED_FIELD.length;
  ev.fields = fields;
  return undefined;
}

/** The byte length to cut the longest values (sorted, longest first) down to so that `excess` bytes go. */
function cutLevel(sorted: Cuttable[], excess: number): number {
  let sum = 0;
  for (let k = 1; k <= sorted.length; k++) {
    sum += sorted[k - 1].bytes;
    // cutting the first k values to `level` frees sum - k × level bytes
    const level = Math.floor((sum - excess) / k);
    if (k === sorted.length || level >= sorted[k].bytes) return Math.max(0, level);
  }
  return 0;
}

/** The longest prefix of `s` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function cutUtf8(s: string, maxBytes: number): string {
  // fast path: at most 3 UTF-8 bytes per UTF-16 unit, so a short string needs no encoding
  if (s.length * 3 <= maxBytes) return s;
  const buf = Buffer.from(s, 'utf8');
  return buf.length <= maxBytes ? s : cutUtf8Bytes(buf, 0, maxBytes);
}

/** The text of data[start, end) where `end` cuts a longer text: backed off to a UTF-8 character boundary. */
export function cutUtf8Bytes(data: Buffer, start: number, end: number): string {
  let e = end;
  // back off continuation bytes (10xxxxxx) so a multi-byte character is never split
  while (e > start && (data[e] & 0xc0) === 0x80) e--;
  return data.toString('utf8', start, e);
}
