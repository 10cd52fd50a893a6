import type { FieldValue, LogEvent } from '../../events/event.js';
import { eventFromObject, type EventDefaults } from '../../events/flatten.js';
import {
  DEFAULT_EVENT_LIMITS,
  EventLimitError,
  fitEvent,
  TIME_ORIGINAL_FIELD,
  type EventLimits,
} from '../../events/limits.js';
import { TextLineTimes } from '../../events/text-time.js';
import type { TimeContext } from '../../events/timestamp.js';
import { firstContent, forEachLine, lineEnd } from '../common/lines.js';
import { syslogHeaderHost } from '../../events/syslog-header.js';

/**
 * Native ingest bodies → LogEvents, in one pass over the (decompressed) bytes.
 *
 * Lines as ingest/common/lines.ts reads them: BOM ignored, LF or CRLF, blank lines skipped but
 * counted (line numbers are 1-based over the whole body), each line decoded into its own string.
 */

export interface LineError {
  line: number;
  message: string;
}

export interface DecodeResult {
  events: LogEvent[];
  /** Malformed lines: counted, not ingested. */
  errors: number;
  /** The first MAX_FIRST_ERRORS of them. */
  firstErrors: LineError[];
}

export const MAX_FIRST_ERRORS = 10;
const MAX_ERROR_TEXT = 120;

/** Shared by every text event: text lines carry no fields. Frozen so a bug that writes to it throws. */
const NO_FIELDS: Record<string, FieldValue> = Object.freeze({});

function addError(r: DecodeResult, line: number, message: string): void {
  r.errors++;
  if (r.firstErrors.length < MAX_FIRST_ERRORS) r.firstErrors.push({ line, message });
}

/** Keeps `ev` when it fits the limits (maybe cut, limits.ts fitEvent), else counts the line's error. */
function keep(r: DecodeResult, line: number, ev: LogEvent, limits: EventLimits): void {
  const refused = fitEvent(ev, limits);
  if (refused === undefined) r.events.push(ev);
  else addError(r, line, refused);
}

/** The event of one JSON object, or the limit it breaks (too deep) as the line's error. */
function objectEvent(
  r: DecodeResult,
  line: number,
  obj: Record<string, unknown>,
  raw: string | undefined,
  d: EventDefaults,
  ctx: TimeContext,
  limits: EventLimits,
): void {
  let ev: LogEvent;
  try {
    ev = eventFromObject(obj, raw, d, ctx);
  } catch (e) {
    if (e instanceof EventLimitError) return addError(r, line, e.message);
    throw e;
  }
  keep(r, line, ev, limits);
}

/**
 * text/plain: one event per line, the line is the message. Time (events/text-time.ts): the line's
 * own leading timestamp; a continuation line (a stack frame, an indented line) takes the time of
 * the line before it; any other line the arrival time.
 */
export function decodeText(
  buf: Buffer,
  d: EventDefaults,
  ctx: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): DecodeResult {
  const r: DecodeResult = { events: [], errors: 0, firstErrors: [] };
  const times = new TextLineTimes(ctx, d.timeUs);
  forEachLine(buf, (start, end, lineNo) => {
    const message = buf.toString('utf8', start, end);
    const timeUs = times.timeOf(message);
    const fields = times.original === undefined ? NO_FIELDS : { [TIME_ORIGINAL_FIELD]: times.original };
    // a syslog file's line names its host when the request names none (events/syslog-header.ts)
    const host = d.host === '' ? (syslogHeaderHost(message) ?? '') : d.host;
    keep(
      r,
      lineNo,
      { timeUs, env: d.env, index: d.index, host, source: d.source, sourcetype: d.sourcetype, message, fields },
      limits,
    );
  });
  return r;
}

/** NDJSON: one JSON object per line. A line that is not a JSON object is an error. */
export function decodeNdjson(
  buf: Buffer,
  d: EventDefaults,
  ctx: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): DecodeResult {
  const r: DecodeResult = { events: [], errors: 0, firstErrors: [] };
  forEachLine(buf, (start, end, lineNo) => {
    const line = buf.toString('utf8', start, end);
    const obj = parseObject(line);
    if (typeof obj === 'string') addError(r, lineNo, obj);
    else objectEvent(r, lineNo, obj, line, d, ctx, limits);
  });
  return r;
}

/**
 * application/json: a JSON array of objects (errors name the 1-based item as `line`), a single
 * object even when pretty-printed over several lines, or else NDJSON.
 */
export function decodeJson(
  buf: Buffer,
  d: EventDefaults,
  ctx: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): DecodeResult {
  const first = firstContent(buf);
  // NDJSON unless the first line alone is not a complete JSON value (an array or pretty-printed object)
  if (buf[first] !== 0x5b && firstLineParses(buf, first)) return decodeNdjson(buf, d, ctx, limits);
  let whole: unknown;
  try {
    whole = JSON.parse(buf.toString('utf8'));
  } catch (e) {
    if (buf[first] !== 0x5b) return decodeNdjson(buf, d, ctx, limits);
    const r: DecodeResult = { events: [], errors: 0, firstErrors: [] };
    addError(r, 1, `cannot parse JSON: ${(e as Error).message}`);
    return r;
  }
  const items = Array.isArray(whole) ? whole : [whole];
  const r: DecodeResult = { events: [], errors: 0, firstErrors: [] };
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (isPlainObject(item)) objectEvent(r, i + 1, item, undefined, d, ctx, limits);
    else addError(r, i + 1, `unexpected ${jsonType(item)}, want a JSON object`);
  }
  return r;
}

function firstLineParses(buf: Buffer, start: number): boolean {
  try {
    JSON.parse(buf.toString('utf8', start, lineEnd(buf, start)));
    return true;
  } catch {
    return false;
  }
}

/** The object of one NDJSON line, or the error message. */
function parseObject(line: string): Record<string, unknown> | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return `cannot parse JSON: ${(e as Error).message}`;
  }
  return isPlainObject(v) ? v : `unexpected ${jsonType(v)} ${line.slice(0, MAX_ERROR_TEXT)}, want a JSON object`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
