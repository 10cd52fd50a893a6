import type { ColRef, ColType } from '../schema.js';
import { asNumber, asText, timeText } from '../sql.js';

/** Coercions between the compiler's column types, as SQL. */
export function toNum(r: ColRef): string {
  if (r.type === 'num') return r.sql;
  if (r.type === 'time') return `(epoch_us(${r.sql}) / 1e6)`;
  return asNumber(r.sql);
}

export function toStr(r: ColRef): string {
  if (r.type === 'str') return r.sql;
  if (r.type === 'time') return timeText(r.sql);
  return asText(r.sql);
}

export function toBool(r: ColRef): string {
  return r.type === 'bool' ? r.sql : `TRY_CAST(${r.sql} AS BOOLEAN)`;
}

/**
 * Values one SQL expression may return (the branches of if() and case(), coalesce()'s arguments),
 * brought to a type DuckDB accepts for all of them: as they are when they share a known type (an
 * untyped NULL goes with any), else all as text, typed `any`. DuckDB refuses to mix BIGINT and
 * VARCHAR in one CASE, casts a text literal to the other branch's type (failing the search when a
 * row takes it), and a user field's storage type (BIGINT, VARCHAR for a field no event has…) is
 * unknown here, so two different fields cannot be trusted to match.
 */
export function unify(values: ColRef[]): { sqls: string[]; type: ColType } {
  const typed = values.filter((v) => v.sql !== 'NULL');
  if (typed.length === 0) return { sqls: values.map((v) => v.sql), type: 'any' };
  // a multivalue beside single values: all as lists (a single value is a multivalue of one, as in
  // Splunk: `if(c, mvappend(x, y), x)` stays a multivalue), not the lists' text
  if (typed.some((v) => v.type === 'list')) return { sqls: values.map(toList), type: 'list' };
  const t = typed[0].type;
  const same = typed.every((v) => v.type === t && (t !== 'any' || v.sql === typed[0].sql));
  if (same) return { sqls: values.map((v) => v.sql), type: t };
  return { sqls: values.map((v) => (v.sql === 'NULL' ? 'NULL' : toStr(v))), type: 'any' };
}

/** A value as a list of text: a list as it is, null as null, anything else a list of one. */
export function toList(r: ColRef): string {
  if (r.type === 'list') return `CAST(${r.sql} AS VARCHAR[])`;
  if (r.sql === 'NULL') return 'CAST(NULL AS VARCHAR[])';
  return `CASE WHEN ${r.sql} IS NULL THEN NULL ELSE [${toStr(r)}] END`;
}

/**
 * A value as a TIMESTAMP, for `eval _time=…`: a time as it is, a number as epoch seconds (what
 * strptime() and now() give), text in a form DuckDB casts (`2024-05-01 10:00:00`, RFC 3339 in
 * UTC). Anything else, or out of range, is null. Undefined for booleans and lists.
 */
export function toTime(r: ColRef): string | undefined {
  if (r.type === 'time') return r.sql;
  const fromSecs = (n: string) => `try(make_timestamp(CAST(${n} * 1e6 AS BIGINT)))`;
  if (r.type === 'num') return fromSecs(r.sql);
  if (r.type === 'str') return `TRY_CAST(${r.sql} AS TIMESTAMP)`;
  if (r.type === 'any') return `coalesce(TRY_CAST(${asText(r.sql)} AS TIMESTAMP), ${fromSecs(asNumber(r.sql))})`;
  return undefined;
}
