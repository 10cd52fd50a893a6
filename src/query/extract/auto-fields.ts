import { CORE_NAMES, type ColRef } from '../schema.js';
import { asText } from '../sql.js';
import { formatFields, STORED_ALIASES } from './formats.js';
import { dateFieldSql, isDateField } from './date-fields.js';
import { jsonValueSql, kvValueSql, mayHoldKeySql, regexGroupSql } from './text-sql.js';

/**
 * Fields found in the message at search time (Splunk's automatic extraction): a field a query
 * reads that an event does not store is looked for in its message, first in the layout of a known
 * log format (formats.ts), then in a JSON object embedded in the message, then as a `key=value`
 * pair. Nothing is re-ingested: the value is computed by the scan that needs it.
 */

let byField: ReturnType<typeof formatFields> | undefined;
const formatSources = () => (byField ??= formatFields());

/**
 * A field that may be found in the message: a user field named in full, not an internal `_name`,
 * not a JSON array path (`a{}.b` is read from the stored field `a`: schema.ts, arrayPath).
 */
export function isExtractable(name: string): boolean {
  return !CORE_NAMES.has(name) && !name.includes('*') && !name.startsWith('_') && !name.includes('{');
}

/** Stored fields that hold the same value as `name` for events that arrived parsed (syslog's `app` for `program`). */
export function storedAliases(name: string): readonly string[] {
  return STORED_ALIASES[name] ?? [];
}

/** The fields known formats give, with those formats by name: the language reference's (autocomplete's) list. */
export function formatFieldCatalog(): { name: string; formats: string[] }[] {
  return [...formatSources()]
    .map(([name, list]) => ({ name, formats: list.map((x) => x.format.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** SQL (VARCHAR) of `name` as the known layouts give it (the first that matches), undefined when no layout has it. */
export function formatValueSql(name: string, text = 'message'): string | undefined {
  const parts = (formatSources().get(name) ?? []).map(({ format, regex }) => {
    const v = regexGroupSql(text, regex);
    return format.dashIsNull?.includes(name) ? `nullif(${v}, '-')` : v;
  });
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : `coalesce(${parts.join(', ')})`;
}

/**
 * SQL (VARCHAR) of the value of `name` found for an event without a stored value: its stored
 * aliases, then each known format that gives `name`, then the message's JSON, then `key=value`.
 * `col` resolves a stored column of the current stage (NULL when absent). `gate`: SQL that must be
 * true for the text to be read at all (a filter's cheap test that the value is in the text).
 */
export function textValueSql(name: string, col: (n: string) => ColRef, gate?: string, text = 'message'): string {
  if (isDateField(name)) {
    // not in the text at all: from the event's time (date-fields.ts)
    const time = col('_time');
    return time.type === 'time' ? dateFieldSql(name, time.sql) : 'NULL';
  }
  const aliases: string[] = [];
  for (const alias of storedAliases(name)) {
    const c = col(alias);
    if (c.sql !== 'NULL') aliases.push(c.type === 'str' ? c.sql : asText(c.sql));
  }
  const layout = formatValueSql(name, text);
  const found = [...(layout ? [layout] : []), jsonValueSql(text, name), kvValueSql(text, name)];
  // fast path: without a layout giving it, the name itself must be in the text, a test cheaper
  // than the value's words (`22` is in most lines with numbers, `id.resp_p` in few)
  const tests = [...(layout ? [] : [mayHoldKeySql(text, name)]), ...(gate === undefined ? [] : [gate])];
  const fromText =
    tests.length === 0
      ? `coalesce(${found.join(', ')})`
      : `CASE WHEN ${tests.join(' AND ')} THEN coalesce(${found.join(', ')}) END`;
  return aliases.length ? `coalesce(${[...aliases, fromText].join(', ')})` : fromText;
}

/**
 * Whether a filter value's tokens must appear in the message of an event whose field value was
 * extracted from it: true for values the extraction returns exactly as written in the text. Not
 * for values with a quote, backslash or control character (JSON escapes them) or for numbers with
 * a fraction or exponent (JSON numbers come back re-spelled: `1.50` as `1.5`, `1e3` as `1000.0`).
 */
export function valueSpelledInText(value: string): boolean {
  if (/["\\\u0000-\u001f]/.test(value)) return false;
  return !/^[-+]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+)$/.test(value);
}
