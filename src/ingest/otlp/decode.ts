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

/** Trace/span ids: hex in JSON, bytes in protobuf; empty → undefined. */
function hexId(v: string | Uint8Array | undefined): string | undefined {
  if (v === undefined) return undefined;
  const s = typeof v === 'string' ? v.toLowerCase() : Buffer.from(v).toString('hex');
  return s.length > 0 && !/^0+$/.test(s) ? s : undefined;
}

/** Nanoseconds (Long, string or number) → µs; 0/absent → undefined. */
export function nanosToUs(v: Long | undefined): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || /^0+$/.test(s)) return undefined;
  return s.length <= 3 ? 0 : Number(s.slice(0, -3));
}

/** Every key of `o` as a field, objects flattened to dotted names. */
function addAll(fields: Record<string, FieldValue>, o: Record<string, unknown>): void {
  for (const k in o) addField(fields, k, o[k]);
}

export interface OtlpDecoded {
  index?: string;
  event: LogEvent;
}

function recordEvent(r: LogRecord, resource: Record<string, FieldValue>, scope: { name?: string; version?: string } | undefined, nowUs: number): OtlpDecoded {
  const fields: Record<string, FieldValue> = { ...resource };
  if (scope?.name) fields['scope.name'] = scope.name;
  if (scope?.version) fields['scope.version'] = scope.version;
  addAll(fields, kvObject(r.attributes));
  const body = plainValue(r.body);
  let message: string;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    addAll(fields, o);
    message = typeof o.message === 'string' ? o.message : JSON.stringify(o);
    if (typeof o.message === 'string') delete fields.message;
  } else message = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  if (r.severityText) fields.severity = r.severityText;
  if (r.severityNumber !== undefined && Number(r.severityNumber) > 0) fields.severity_number = Number(r.severityNumber);
  const traceId = hexId(r.traceId);
  const spanId = hexId(r.spanId);
  if (traceId) fields.trace_id = traceId;
  if (spanId) fields.span_id = spanId;
  if (r.flags) fields.flags = r.flags;
  if (r.eventName) fields['event.name'] = r.eventName;
  const index = typeof fields[INDEX_ATTRIBUTE] === 'string' ? (fields[INDEX_ATTRIBUTE] as string) : undefined;
  delete fields[INDEX_ATTRIBUTE];
  const timeUs = nanosToUs(r.timeUnixNano) ?? nanosToUs(r.observedTimeUnixNano) ?? nowUs;
  const host = typeof resource['host.name'] === 'string' ? resource['host.name'] : '';
  const source = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
  return { index, event: { timeUs, env: '', index: '', host, source, sourcetype: 'otlp', message, fields } };
}

export function requestToEvents(req: ExportRequest, nowUs: number): OtlpDecoded[] {
  const out: OtlpDecoded[] = [];
  for (const rl of req.resourceLogs ?? []) {
    const resource: Record<string, FieldValue> = {};
    addAll(resource, kvObject(rl.resource?.attributes));
    for (const sl of rl.scopeLogs ?? []) {
      for (const r of sl.logRecords ?? []) out.push(recordEvent(r, resource, sl.scope, nowUs));
    }
  }
  return out;
}
