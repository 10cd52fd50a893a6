import type { LogEvent } from '../../events/event.js';
import { lit } from '../sql-quote.js';

// The WAL line format, in one place for the side that writes it (batch-encode.ts) and the sides
// that read it back through DuckDB (seal, scans of live data, replay without a summary).

/** The WAL line of an event: its own JSON (keys timeUs, env, index, host, source, sourcetype, message, fields). */
export function walLine(ev: LogEvent): string {
  return JSON.stringify(ev);
}

/** read_json columns matching walLine. */
export const WAL_COLUMNS_SQL =
  "columns={timeUs: 'BIGINT', env: 'VARCHAR', \"index\": 'VARCHAR', host: 'VARCHAR', source: 'VARCHAR', sourcetype: 'VARCHAR', message: 'VARCHAR', fields: 'JSON'}";

/** A table expression over WAL segment files (torn last lines are skipped). */
export function walReadSql(paths: string[]): string {
  const list = paths.map(lit).join(', ');
  return `read_json([${list}], format='newline_delimited', ${WAL_COLUMNS_SQL}, ignore_errors=true)`;
}

/**
 * The rows of WAL segment files in the seal's shape (seal-blocks.ts): `_time, env, "index", host,
 * source, sourcetype, message, _f JSON, _day`. Columnar copies of live segments (live-columns.ts)
 * hold exactly these columns, so either side can stand for the other.
 */
export function walRowsSql(paths: string[]): string {
  return `(SELECT make_timestamp(timeUs) AS _time, env, "index", host, source, sourcetype, message, fields AS _f,
         timeUs // 86400000000 AS _day FROM ${walReadSql(paths)} WHERE timeUs IS NOT NULL)`;
}
