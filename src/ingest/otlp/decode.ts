import { SvcError } from '../../errors/svc-error.js';
import { addUnique, type FieldValue, type LogEvent } from '../../events/event.js';
import { addField } from '../../events/flatten.js';
import {
  DEFAULT_EVENT_LIMITS,
  depthError,
  EventLimitError,
  eventTime,
  fitEvent,
  jsonText,
  MAX_DEPTH,
  type EventLimits,
} from '../../events/limits.js';
import type { TimeContext } from '../../events/timestamp.js';
import { ExportLogsServiceRequest } from './logs-proto.js';

/**
 * OTLP ExportLogsServiceRequest (protobuf or JSON) → events still missing env/index. Pure.
 * Mapping: body → message (a map body is flattened into fields, its `message` key is the text);
 * resource and record attributes → fields by their own (dotted) names, record winning; scope →
 * `scope.name`/`scope.version`; `severity`, `severity_number`, `trace_id`, `span_id`, `flags`,
 * `event.name`. host = `host.name`, source = `service.name`, sourcetype = `otlp`. The attribute
 * `svc.index` (record, else resource) asks for an index and is not kept as a field.
 */

export const INDEX_ATTRIBUTE = 'svc.index';

type Long = number | string | { toString(): string };
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Long;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string | Uint8Array;
}
interface KeyValue {
  key?: string;
  value?: AnyValue;
}
interface LogRecord {
  timeUnixNano?: Long;
  observedTimeUnixNano?: Long;
  severityNumber?: number | string;
  severityText?: string;
  body?: AnyValue;
  attributes?: KeyValue[];
  flags?: number;
  traceId?: string | Uint8Array;
  spanId?: string | Uint8Array;
  eventName?: string;
}
export interface ExportRequest {
  resourceLogs?: {
    resource?: { attributes?: KeyValue[] };
    scopeLogs?: { scope?: { name?: string; version?: string }; logRecords?: LogRecord[] }[];
  }[];
}

export function decodeProtobufRequest(body: Buffer): ExportRequest {
  try {
    const msg = ExportLogsServiceRequest.decode(body);
    return ExportLogsServiceRequest.toObject(msg, { longs: String, enums: Number, defaults: false });
  } catch (e) {
    throw new SvcError('invalid_input', `cannot decode ExportLogsServiceRequest: ${(e as Error).message}`);
  }
}

export function decodeJsonRequest(text: string): ExportRequest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not an object');
  } catch (e) {
    throw new SvcError('invalid_json', `cannot parse ExportLogsServiceRequest JSON: ${(e as Error).message}`);
  }
  checkShape(doc);
  return doc;
}

/** A list the OTLP JSON schema says is an array (of objects): anything else is invalid_input naming where. */
function list(v: unknown, where: string): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw new SvcError('invalid_input', `unexpected ${typeof v} at ${where}: want an array`);
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'object' || x === null || Array.isArray(x))
      throw new SvcError(
        'invalid_input',
        `unexpected ${x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x} at ${where}[${i}]: want an object`,
      );
  }
}

/**
 * The containers of an OTLP/JSON export, checked before they are walked, so a wrong shape (a
 * `resourceLogs` that is not an array, a record that is a string) is a 400 naming where, never a
 * TypeError. Protobuf bodies get their shape from the decoder.
 */
function checkShape(req: ExportRequest): void {
  list(req.resourceLogs, 'resourceLogs');
  (req.resourceLogs ?? []).forEach((rl, i) => {
    if (rl.resource !== undefined && (typeof rl.resource !== 'object' || rl.resource === null))
      throw new SvcError(
        'invalid_input',
        `unexpected ${typeof rl.resource} at resourceLogs[${i}].resource: want an object`,
      );
    list(rl.resource?.attributes, `resourceLogs[${i}].resource.attributes`);
    list(rl.scopeLogs, `resourceLogs[${i}].scopeLogs`);
    (rl.scopeLogs ?? []).forEach((sl, j) => {
      list(sl.logRecords, `resourceLogs[${i}].scopeLogs[${j}].logRecords`);
      (sl.logRecords ?? []).forEach((r, k) =>
        list(r.attributes, `resourceLogs[${i}].scopeLogs[${j}].logRecords[${k}].attributes`),
      );
    });
  });
}

/** An AnyValue as plain JSON-like data. int64 beyond 2^53 stays a string. Nested past MAX_DEPTH: EventLimitError. */
export function plainValue(v: AnyValue | undefined, depth = 1): unknown {
  if (!v || typeof v !== 'object') return undefined;
  if (depth > MAX_DEPTH) throw depthError();
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const s = String(v.intValue);
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return arrayOf(v.arrayValue?.values).map((x) => plainValue(x as AnyValue, depth + 1));
  if (v.kvlistValue !== undefined) return kvObject(arrayOf(v.kvlistValue?.values) as KeyValue[], depth + 1);
  if (v.bytesValue !== undefined)
    return typeof v.bytesValue === 'string' ? v.bytesValue : Buffer.from(v.bytesValue).toString('base64');
  return undefined;
}

/** An AnyValue's list: missing is empty, anything but an array is refused. */
function arrayOf(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new SvcError('invalid_input', `unexpected ${typeof v} in an AnyValue: want an array of values`);
  return v;
}

function kvObject(kvs: KeyValue[], depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const kv of kvs) if (kv && typeof kv.key === 'string' && kv.key) o[kv.key] = plainValue(kv.value, depth);
  return o;
}

/** Trace/span ids: hex in JSON, bytes in protobuf; empty or all-zero → undefined. */
function hexId(v: string | Uint8Array | undefined): string | undefined {
  // OTLP/JSON may carry anything here: only hex text (JSON) or bytes (protobuf) are ids
  if (typeof v !== 'string' && !(v instanceof Uint8Array)) return undefined;
  if (v.length === 0) return undefined;
  const s = typeof v === 'string' ? v.toLowerCase() : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== 48) return s;
  return undefined;
}

/** Nanoseconds (Long, string or number) → µs; 0/absent → undefined. */
export function nanosToUs(v: Long | undefined): number | undefined {
  if (v === undefined) return undefined;
  const s = typeof v === 'string' ? v : String(v);
  if (s.length <= 3) return s.length === 0 || !/^\d+$/.test(s) || Number(s) === 0 ? undefined : 0;
  const us = Number(s.slice(0, -3));
  return Number.isFinite(us) && us > 0 ? us : undefined;
}

export interface OtlpDecoded {
  index?: string;
  event: LogEvent;
}

/** Attributes as fields (objects flattened), except `svc.index`, which is returned. */
function addAttributes(fields: Record<string, FieldValue>, kvs: KeyValue[] | undefined): string | undefined {
  let index: string | undefined;
  if (!kvs) return undefined;
  for (const kv of kvs) {
    if (!kv || typeof kv.key !== 'string' || !kv.key) continue;
    const v = plainValue(kv.value);
    if (kv.key === INDEX_ATTRIBUTE) {
      if (typeof v === 'string') index = v;
      continue;
    }
    addField(fields, kv.key, v);
  }
  return index;
}

interface ResourceInfo {
  fields: Record<string, FieldValue>;
  index?: string;
  host: string;
  source: string;
}

/** The record's time: timeUnixNano, else observedTimeUnixNano, else arrival; one outside the window is kept as time_original. */
function recordTime(r: LogRecord, time: TimeContext, fields: Record<string, FieldValue>): number {
  const t = nanosToUs(r.timeUnixNano);
  if (t !== undefined) return eventTime(t, String(r.timeUnixNano), time.nowUs, time, fields);
  const o = nanosToUs(r.observedTimeUnixNano);
  if (o !== undefined) return eventTime(o, String(r.observedTimeUnixNano), time.nowUs, time, fields);
  return time.nowUs;
}

function recordEvent(
  r: LogRecord,
  res: ResourceInfo,
  scope: { name?: string; version?: string } | undefined,
  time: TimeContext,
): OtlpDecoded {
  const fields: Record<string, FieldValue> = { ...res.fields };
  if (scope?.name) addUnique(fields, 'scope.name', scope.name);
  if (scope?.version) addUnique(fields, 'scope.version', scope.version);
  const index = addAttributes(fields, r.attributes) ?? res.index;
  const body = plainValue(r.body);
  let message: string;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    const text = typeof o.message === 'string' ? o.message : undefined;
    for (const k in o) if (k !== 'message' || text === undefined) addField(fields, k, o[k]);
    message = text ?? jsonText(o, 1);
  } else message = body === undefined ? '' : typeof body === 'string' ? body : jsonText(body, 1);
  // the record's own fields after its attributes and body: one named alike keeps both values (event.ts addUnique)
  if (typeof r.severityText === 'string' && r.severityText) addUnique(fields, 'severity', r.severityText);
  if (r.severityNumber !== undefined && Number(r.severityNumber) > 0)
    addUnique(fields, 'severity_number', Number(r.severityNumber));
  const traceId = hexId(r.traceId);
  const spanId = hexId(r.spanId);
  if (traceId) addUnique(fields, 'trace_id', traceId);
  if (spanId) addUnique(fields, 'span_id', spanId);
  if (typeof r.flags === 'number' && r.flags) addUnique(fields, 'flags', r.flags);
  if (typeof r.eventName === 'string' && r.eventName) addUnique(fields, 'event.name', r.eventName);
  const timeUs = recordTime(r, time, fields);
  return {
    index,
    event: { timeUs, env: '', index: '', host: res.host, source: res.source, sourcetype: 'otlp', message, fields },
  };
}

/** A record refused by a limit (events/limits.ts): counted as rejected, with the reason. */
export interface OtlpRefused {
  refused: string;
}

/**
 * The records of an export as events, or for a record that breaks a limit (nested too deep, too
 * many fields) the reason it is refused; a resource whose attributes break one refuses its records.
 */
export function requestToEvents(
  req: ExportRequest,
  time: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): (OtlpDecoded | OtlpRefused)[] {
  const out: (OtlpDecoded | OtlpRefused)[] = [];
  for (const rl of req.resourceLogs ?? []) {
    let res: ResourceInfo | OtlpRefused;
    try {
      const fields: Record<string, FieldValue> = {};
      const index = addAttributes(fields, rl.resource?.attributes);
      const host = typeof fields['host.name'] === 'string' ? fields['host.name'] : '';
      const source = typeof fields['service.name'] === 'string' ? fields['service.name'] : '';
      res = { fields, index, host, source };
    } catch (e) {
      if (!(e instanceof EventLimitError)) throw e;
      res = { refused: e.message };
    }
    for (const sl of rl.scopeLogs ?? []) {
      for (const r of sl.logRecords ?? []) out.push('refused' in res ? res : limited(r, res, sl.scope, time, limits));
    }
  }
  return out;
}

function limited(
  r: LogRecord,
  res: ResourceInfo,
  scope: { name?: string; version?: string } | undefined,
  time: TimeContext,
  limits: EventLimits,
): OtlpDecoded | OtlpRefused {
  try {
    const d = recordEvent(r, res, scope, time);
    const refused = fitEvent(d.event, limits);
    return refused === undefined ? d : { refused };
  } catch (e) {
    if (e instanceof EventLimitError) return { refused: e.message };
    throw e;
  }
}
