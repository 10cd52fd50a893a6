import { SvcError } from '../../errors/svc-error.js';
import type { FieldValue, LogEvent } from '../../events/event.js';
import { addField } from '../../events/flatten.js';
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
    return ExportLogsServiceRequest.toObject(msg, { longs: String, enums: Number, defaults: false }) as ExportRequest;
  } catch (e) {
    throw new SvcError('invalid_input', `cannot decode ExportLogsServiceRequest: ${(e as Error).message}`);
  }
}

export function decodeJsonRequest(text: string): ExportRequest {
  try {
    const doc: unknown = JSON.parse(text);
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not an object');
    return doc as ExportRequest;
  } catch (e) {
    throw new SvcError('invalid_json', `cannot parse ExportLogsServiceRequest JSON: ${(e as Error).message}`);
  }
}

/** An AnyValue as plain JSON-like data. int64 beyond 2^53 stays a string. */
export function plainValue(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const s = String(v.intValue);
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(plainValue);
  if (v.kvlistValue !== undefined) return kvObject(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return typeof v.bytesValue === 'string' ? v.bytesValue : Buffer.from(v.bytesValue).toString('base64');
  return undefined;
}

function kvObject(kvs: KeyValue[] | undefined): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const kv of kvs ?? []) if (kv.key) o[kv.key] = plainValue(kv.value);
  return o;
}

/** Trace/span ids: hex in JSON, bytes in protobuf; empty or all-zero → undefined. */
function hexId(v: string | Uint8Array | undefined): string | undefined {
  if (v === undefined || v.length === 0) return undefined;
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
    if (!kv.key) continue;
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

function recordEvent(r: LogRecord, res: ResourceInfo, scope: { name?: string; version?: string } | undefined, nowUs: number): OtlpDecoded {
  const fields: Record<string, FieldValue> = { ...res.fields };
  if (scope?.name) fields['scope.name'] = scope.name;
  if (scope?.version) fields['scope.version'] = scope.version;
  const index = addAttributes(fields, r.attributes) ?? res.index;
  const body = plainValue(r.body);
  let message: string;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    const text = typeof o.message === 'string' ? o.message : undefined;
    for (const k in o) if (k !== 'message' || text === undefined) addField(fields, k, o[k]);
    message = text ?? JSON.stringify(o);
  } else message = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  if (r.severityText) fields.severity = r.severityText;
  if (r.severityNumber !== undefined && Number(r.severityNumber) > 0) fields.severity_number = Number(r.severityNumber);
  const traceId = hexId(r.traceId);
  const spanId = hexId(r.spanId);
  if (traceId) fields.trace_id = traceId;
  if (spanId) fields.span_id = spanId;
  if (r.flags) fields.flags = r.flags;
  if (r.eventName) fields['event.name'] = r.eventName;
  const timeUs = nanosToUs(r.timeUnixNano) ?? nanosToUs(r.observedTimeUnixNano) ?? nowUs;
  return { index, event: { timeUs, env: '', index: '', host: res.host, source: res.source, sourcetype: 'otlp', message, fields } };
}

export function requestToEvents(req: ExportRequest, nowUs: number): OtlpDecoded[] {
  const out: OtlpDecoded[] = [];
  for (const rl of req.resourceLogs ?? []) {
    const fields: Record<string, FieldValue> = {};
    const index = addAttributes(fields, rl.resource?.attributes);
    const host = typeof fields['host.name'] === 'string' ? fields['host.name'] : '';
    const source = typeof fields['service.name'] === 'string' ? fields['service.name'] : '';
    const res: ResourceInfo = { fields, index, host, source };
    for (const sl of rl.scopeLogs ?? []) {
      for (const r of sl.logRecords ?? []) out.push(recordEvent(r, res, sl.scope, nowUs));
    }
  }
  return out;
}
