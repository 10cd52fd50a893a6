import { addUnique, type FieldValue, type LogEvent } from '../../events/event.js';
import { epochToUs, type TimeContext } from '../../events/timestamp.js';
import { TextLineTimes } from '../../events/text-time.js';
import { syslogHeaderHost } from '../../events/syslog-header.js';
import { addField, eventFromObject } from '../../events/flatten.js';
import {
  DEFAULT_EVENT_LIMITS,
  EventLimitError,
  eventTime,
  fitEvent,
  jsonText,
  TIME_ORIGINAL_FIELD,
  type EventLimits,
} from '../../events/limits.js';
import { forEachLine } from '../common/lines.js';
import { hecError } from './hec-error.js';
import { splitConcatenatedJson } from './split-events.js';

/**
 * Decodes HEC bodies into events still missing env/index: each carries the `index` it asks for.
 * Pure: no HTTP, no auth. Throws SvcError with Splunk's code for a bad body (hec-error.ts; the whole
 * request is refused, so a batch is stored whole or not at all). An event that breaks a limit
 * (events/limits.ts: too many fields, nested too deep) is Splunk's code 6 "Invalid data format"
 * naming its `invalid-event-number` and the reason; one that is only cut to size is no error.
 */

export interface HecMeta {
  host?: string;
  source?: string;
  sourcetype?: string;
  index?: string;
  /** Channel of the request (X-Splunk-Request-Channel or ?channel=), kept as a field. */
  channel?: string;
}

export interface HecDecoded {
  index?: string;
  event: LogEvent;
}

/**
 * `time` as epoch seconds (number or string, decimals allowed) → µs; ms/µs/ns tolerated by
 * magnitude. A number outside the event time window (before year 1, far ahead) is still a time:
 * the caller's eventTime puts it in time_original.
 */
export function hecTimeUs(t: unknown): number | undefined {
  const n = typeof t === 'number' ? t : typeof t === 'string' && t.trim() !== '' ? Number(t) : NaN;
  if (!Number.isFinite(n)) return undefined;
  return epochToUs(n);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Fits `event` to the limits (limits.ts fitEvent); an event refused is code 6 naming it. */
function fitted(event: LogEvent, n: number, limits: EventLimits): LogEvent {
  const refused = fitEvent(event, limits);
  if (refused !== undefined) throw hecError('Invalid data format', 6, { 'invalid-event-number': n, reason: refused });
  return event;
}

function decodeOne(
  obj: Record<string, unknown>,
  n: number,
  meta: HecMeta,
  time: TimeContext,
  limits: EventLimits,
): HecDecoded {
  try {
    return decodeFields(obj, n, meta, time, limits);
  } catch (e) {
    if (e instanceof EventLimitError)
      throw hecError('Invalid data format', 6, { 'invalid-event-number': n, reason: e.message });
    throw e;
  }
}

function decodeFields(
  obj: Record<string, unknown>,
  n: number,
  meta: HecMeta,
  time: TimeContext,
  limits: EventLimits,
): HecDecoded {
  const ev = obj.event;
  if (ev === undefined || ev === null) throw hecError('Event field is required', 12, { 'invalid-event-number': n });
  if (ev === '' || (typeof ev === 'object' && !Array.isArray(ev) && Object.keys(ev).length === 0)) {
    throw hecError('Event field cannot be blank', 13, { 'invalid-event-number': n });
  }
  const timeUs = obj.time === undefined ? undefined : hecTimeUs(obj.time);
  if (obj.time !== undefined && timeUs === undefined)
    throw hecError('Invalid data format', 6, { 'invalid-event-number': n, reason: 'cannot parse time' });
  const host = str(obj.host) ?? meta.host ?? '';
  const source = str(obj.source) ?? meta.source ?? '';
  const sourcetype = str(obj.sourcetype) ?? meta.sourcetype ?? 'httpevent';
  const base = { env: '', index: '', timeUs: time.nowUs, host, source, sourcetype };
  let event: LogEvent;
  if (typeof ev === 'object' && !Array.isArray(ev)) {
    event = eventFromObject(ev as Record<string, unknown>, undefined, base, time);
    if (timeUs !== undefined)
      event.timeUs = eventTime(timeUs, obj.time as number | string, time.nowUs, time, event.fields);
    if (str(obj.host) ?? meta.host) event.host = host;
    if (str(obj.source) ?? meta.source) event.source = source;
    if (str(obj.sourcetype) ?? meta.sourcetype) event.sourcetype = sourcetype;
  } else {
    event = {
      env: '',
      index: '',
      timeUs: base.timeUs,
      host,
      source,
      sourcetype,
      message: typeof ev === 'string' ? ev : jsonText(ev, 1),
      fields: {},
    };
    if (timeUs !== undefined)
      event.timeUs = eventTime(timeUs, obj.time as number | string, time.nowUs, time, event.fields);
  }
  if (obj.fields !== undefined && typeof obj.fields === 'object' && obj.fields !== null) {
    for (const [k, v] of Object.entries(obj.fields)) addField(event.fields, k, v);
  }
  if (meta.channel) addUnique(event.fields, 'channel', meta.channel);
  return { index: str(obj.index) ?? meta.index, event: fitted(event, n, limits) };
}

/** `/services/collector[/event[/1.0]]`: concatenated JSON event objects. */
export function decodeEventBody(
  text: string,
  meta: HecMeta,
  time: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): HecDecoded[] {
  const { objects, invalidAt } = splitConcatenatedJson(text);
  if (objects.length === 0 && invalidAt === undefined) throw hecError('No data', 5);
  const out: HecDecoded[] = [];
  for (let n = 0; n < objects.length; n++) {
    let obj: unknown;
    try {
      obj = JSON.parse(objects[n]);
    } catch {
      throw hecError('Invalid data format', 6, { 'invalid-event-number': n });
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw hecError('Invalid data format', 6, { 'invalid-event-number': n });
    out.push(decodeOne(obj as Record<string, unknown>, n, meta, time, limits));
  }
  if (invalidAt !== undefined) throw hecError('Invalid data format', 6, { 'invalid-event-number': invalidAt });
  return out;
}

/**
 * `/services/collector/raw`: one event per non-empty line (read as native text lines are,
 * ingest/common/lines.ts), metadata from the query string; the time as for native text lines
 * (events/text-time.ts): the line's own leading timestamp, the previous line's for a continuation
 * line, else arrival.
 */
export function decodeRawBody(
  body: Buffer,
  meta: HecMeta,
  time: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): HecDecoded[] {
  const out: HecDecoded[] = [];
  const times = new TextLineTimes(time, time.nowUs);
  forEachLine(body, (start, end) => {
    const line = body.toString('utf8', start, end);
    // HEC raw has always skipped lines of any Unicode white space (no-break spaces, form feeds), not
    // only the reader's spaces and tabs: kept so such a line stays no event
    if (line.trim().length === 0) return;
    const fields: Record<string, FieldValue> = meta.channel ? { channel: meta.channel } : {};
    const timeUs = times.timeOf(line);
    if (times.original !== undefined) fields[TIME_ORIGINAL_FIELD] = times.original;
    const event: LogEvent = {
      timeUs,
      env: '',
      index: '',
      // a syslog file's line names its host when the request names none (events/syslog-header.ts)
      host: meta.host ?? syslogHeaderHost(line) ?? '',
      source: meta.source ?? '',
      sourcetype: meta.sourcetype ?? 'httpevent',
      message: line,
      fields,
    };
    out.push({ index: meta.index, event: fitted(event, out.length, limits) });
  });
  if (out.length === 0) throw hecError('No data', 5);
  return out;
}
