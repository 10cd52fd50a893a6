/** A field value after flattening: nested objects become dotted names, arrays become JSON text. */
export type FieldValue = string | number | boolean;

/**
 * The canonical event every ingest protocol produces and the storage engine keeps.
 * `timeUs` is the event's own time in microseconds since the epoch (DuckDB TIMESTAMP precision);
 * events are routed to blocks by it, not by arrival time.
 */
export interface LogEvent {
  timeUs: number;
  env: string;
  index: string;
  host: string;
  source: string;
  sourcetype: string;
  /** The searchable text: the event's message, or for JSON events without one, the original line. */
  message: string;
  fields: Record<string, FieldValue>;
}

/** Column names with a fixed meaning; a user field with one of these names is renamed on ingest. */
export const CORE_FIELDS = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'] as const;
export type CoreField = (typeof CORE_FIELDS)[number];

export const DEFAULT_INDEX = 'main';

/**
 * fields[name] = value, but a field named `__proto__` (JSON.parse makes it an own key) is kept
 * as an ordinary field: assigning it would go to the prototype setter and lose the value.
 */
export function setField(fields: Record<string, FieldValue>, name: string, value: FieldValue): void {
  if (name === '__proto__') Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}
