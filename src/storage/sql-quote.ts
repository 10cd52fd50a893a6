/**
 * The one quoting of text into SQL, for every statement svc sends to DuckDB (storage's, the query
 * compiler's, the lookups'). It imports nothing, so modules that a decode worker loads can use it
 * without pulling in the DuckDB addon (test/architecture.test.ts).
 *
 * NUL is left as it is here: DuckDB rejects it in a literal, and what storage quotes never holds
 * one (paths it made; field names, whose NUL events/limits.ts turns into U+FFFD on the way in).
 * Text a user typed (search terms, lookup values) may: its callers drop it first with withoutNul.
 */

/** A SQL string literal: `'…'` with single quotes doubled. Backslashes need nothing: SQL strings have no escapes. */
export function lit(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A SQL quoted identifier: `"…"` with double quotes doubled. */
export function ident(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/** `s` without NUL characters, which DuckDB refuses in literals and identifiers. */
export function withoutNul(s: string): string {
  return s.replaceAll('\u0000', '');
}
