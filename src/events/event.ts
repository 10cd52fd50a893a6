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
  if (name === '__proto__')
    Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}

/**
 * setField, but a name the event already has keeps its value: the new one is added as `<name>_2`
 * (or the first of `_3`, `_4`… that is free). Names meet only by flattening (`{"a":{"b":1},"a.b":2}`
 * gives `a.b` twice) or where a decoder adds its own field (`env_user`, HEC `fields`, `time_original`):
 * the first keeps the name, in the order the event gives them, and no value is lost.
 */
export function addUnique(fields: Record<string, FieldValue>, name: string, value: FieldValue): void {
  if (!Object.prototype.hasOwnProperty.call(fields, name)) {
    setField(fields, name, value);
    return;
  }
  let n = 2;
  while (Object.prototype.hasOwnProperty.call(fields, `${name}_${n}`)) n++;
  setField(fields, `${name}_${n}`, value);
}
