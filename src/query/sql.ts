import { fieldColumn } from '../events/field-column.js';
import { ident as quoteIdent, lit, withoutNul } from '../storage/sql-quote.js';

/**
 * SQL text helpers. Every user-provided string that reaches DuckDB goes through `str` (a string
 * literal) or `ident` (a quoted identifier); nothing is ever spliced in raw.
 */

/** A DuckDB string literal: single quotes doubled; NUL (which DuckDB rejects) dropped. */
export function str(s: string): string {
  return lit(withoutNul(s));
}

/**
 * The quoted column of a field or result name: its fieldColumn (events/field-column.ts), so that
 * `Foo` and `foo` stay two columns to DuckDB, double quotes doubled.
 */
export function ident(name: string): string {
  return quoted(fieldColumn(name));
}

/** A result's own name for a column, as the answer shows it: only in a statement's top-level SELECT list (see ident). */
export function outputName(name: string): string {
  return quoted(name);
}

/** SQL for the field name of a column name held in `sql`: fieldOfColumn (events/field-column.ts) in SQL (an UNPIVOT's names). */
export function fieldOfColumnSql(sql: string): string {
  return `regexp_replace(${sql}, '\\x01[0-9,]*$', '')`;
}

function quoted(name: string): string {
  return quoteIdent(withoutNul(name));
}

/** Escapes RE2 metacharacters so `s` matches itself. */
export function reEscape(s: string): string {
  return s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** Escapes LIKE wildcards (`%`, `_`, `\`) for a pattern used with `ESCAPE '\'`. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, '\\$&');
}

/** A finite number as SQL; the parser only lets numeric literals through, this is the last guard. */
export function num(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`BUG: non-finite number in SQL: ${n}`);
  return String(n);
}

export const NUMERIC = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** The number a search value stands for, when it is a numeric literal within range (`1e400` is text). */
export function numericValue(text: string): number | undefined {
  if (!NUMERIC.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A column as a DOUBLE whatever its storage type (VARCHAR "404", BIGINT, DOUBLE). */
export function asNumber(sqlExpr: string): string {
  return `TRY_CAST(${sqlExpr} AS DOUBLE)`;
}

export function asText(sqlExpr: string): string {
  return `CAST(${sqlExpr} AS VARCHAR)`;
}

/** RFC 3339 text of a TIMESTAMP column with microseconds, as the API returns times. */
export function timeText(sqlExpr: string): string {
  return `strftime(${sqlExpr}, '%Y-%m-%dT%H:%M:%S.%fZ')`;
}

/** A TIMESTAMP literal for epoch milliseconds (microsecond precision kept). */
export function timeLiteral(ms: number): string {
  if (!Number.isFinite(ms)) throw new Error(`BUG: non-finite time ${ms}`);
  return `make_timestamp(${Math.round(ms * 1000)}::BIGINT)`;
}
