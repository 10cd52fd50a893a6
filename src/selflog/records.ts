import { hostname } from 'node:os';
import type { FieldValue, LogEvent } from '../events/event.js';
import { SYSTEM_ENV } from '../control/envs.js';
import { redact, redactString } from './redact.js';
import {
  SVCLOGS_INDEX,
  SVCMCP_INDEX,
  type Detail,
  type McpCallRecord,
  type SelfLogLevel,
  type ServiceEventName,
} from './types.js';

/** Turns self-log calls into canonical events of `_system`. Pure apart from the host name. */

const HOST = hostname();
const MAX_FIELDS = 64;

/** Flattens nested values into dotted fields of scalar values; arrays become JSON text. */
export function flattenFields(
  value: unknown,
  prefix: string,
  out: Record<string, FieldValue>,
): Record<string, FieldValue> {
  if (Object.keys(out).length >= MAX_FIELDS || value === null || value === undefined) return out;
  if (typeof value === 'string' || typeof value === 'boolean') out[prefix] = value;
  else if (typeof value === 'number') out[prefix] = Number.isFinite(value) ? value : String(value);
  else if (Array.isArray(value)) out[prefix] = redactString(JSON.stringify(value));
  else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      flattenFields(v, prefix ? `${prefix}.${k}` : k, out);
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what is left (bigint, symbol, function) has its own toString
  else out[prefix] = String(value);
  return out;
}

export function defaultLevel(event: ServiceEventName): SelfLogLevel {
  if (event === 'llm_error' || event === 'storage_problem') return 'error';
  if (
    event === 'config_warning' ||
    event === 'credential_rejected' ||
    event === 'search_stopped' ||
    event === 'monitor_destination_failed' ||
    event === 'syslog_dropped'
  )
    return 'warn';
  if (event.startsWith('saml_'))
    return event === 'saml_login' || /_(ok|success|succeeded)$/.test(event) ? 'info' : 'warn';
  return 'info';
}

function summary(detail: Detail): string {
  return Object.entries(detail)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)}`)
    .join(' ');
}

export function serviceEvent(event: ServiceEventName, detail: Detail, level: SelfLogLevel, timeMs: number): LogEvent {
  const clean = redact(detail) as Detail;
  const text = summary(clean);
  return {
    timeUs: timeMs * 1000,
    env: SYSTEM_ENV,
    index: SVCLOGS_INDEX,
    host: HOST,
    source: 'svc',
    sourcetype: 'svc:service',
    message: text ? `${event} ${text}` : event,
    fields: flattenFields(clean, '', { event, level }),
  };
}

export function mcpCallEvent(rec: McpCallRecord, timeMs: number): LogEvent {
  const args = redact(rec.args);
  const fields: Record<string, FieldValue> = {
    tool: rec.tool,
    key_name: rec.principalName,
    key_id: rec.principalId,
    principal_kind: rec.principalKind,
    outcome: rec.outcome,
    duration_ms: Math.round(rec.durationMs),
    result_count: rec.resultCount,
    arguments: redactString(JSON.stringify(args ?? {})),
  };
  if (rec.errorCode) fields.error_code = rec.errorCode;
  if (rec.errorMessage) fields.error_message = redactString(rec.errorMessage);
  flattenFields(args, 'args', fields);
  const err = rec.outcome === 'ok' ? '' : ` ${rec.errorCode ?? 'error'}`;
  return {
    timeUs: timeMs * 1000,
    env: SYSTEM_ENV,
    index: SVCMCP_INDEX,
    host: HOST,
    source: 'svc',
    sourcetype: 'svc:mcp',
    message: `mcp ${rec.tool} by ${rec.principalName} (${rec.principalKind} ${rec.principalId}) ${rec.outcome}${err}: ${rec.resultCount} results in ${Math.round(rec.durationMs)} ms`,
    fields,
  };
}
