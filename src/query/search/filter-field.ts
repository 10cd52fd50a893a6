import { isFieldName, quoteString } from '../lexer.js';
import { colRef, type ColRef, type Schema } from '../schema.js';
import { valueSpelledInText } from '../extract/auto-fields.js';
import { matchMessageSql } from './filter-term.js';
import { isDateField } from '../extract/date-fields.js';
import { asNumber, asText, likeEscape, num, numericValue, str } from '../sql.js';

export type FieldOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * `field=value`, `field:value` (printed as `=`), `field!=value` and the comparisons.
 * Equality is case-insensitive on the whole value (`CASE(v)`: as written); `*` is a wildcard, quoted
 * or not, as in Splunk (`CommandLine="*-enc *"`): quotes only let a value hold spaces and breakers. A numeric value compares numerically whatever the column's storage type.
 */
export interface FieldFilter {
  kind: 'field';
  field: string;
  op: FieldOp;
  value: string;
  quoted: boolean;
  /** `field=CASE(value)`: the value compares with its case as written. */
  caseSensitive?: boolean;
}

export function printField(f: FieldFilter): string {
  const value = f.caseSensitive ? `CASE(${f.value})` : f.quoted ? quoteString(f.value) : f.value;
  // a name the search syntax does not take bare is written in quotes (`"user name"=x`)
  return `${isFieldName(f.field) ? f.field : quoteString(f.field)}${f.op}${value}`;
}

function equalsSql(f: FieldFilter, col: ColRef): string {
  const text = col.type === 'str' ? col.sql : asText(col.sql);
  const fold = (sql: string) => (f.caseSensitive ? sql : `lower(${sql})`);
  const value = f.caseSensitive ? f.value : f.value.toLowerCase();
  if (f.value.includes('*')) {
    if (/^\*+$/.test(f.value)) return `(${col.sql} IS NOT NULL)`;
    const pattern = value.split('*').map(likeEscape).join('%');
    return `(${fold(text)} LIKE ${str(pattern)} ESCAPE '\\')`;
  }
  const n = numericValue(f.value);
  if (n !== undefined && col.type !== 'str') return `(${asNumber(col.sql)} = ${num(n)})`;
  return `(${fold(text)} = ${str(value)})`;
}

/** SQL of a field's value found in the message; `gate` is a test the message must pass to be read. */
export type ExtractedValue = (gate?: string) => string;

/**
 * Field filters over a stage's columns. `extracted` gives, for a field, the SQL of its value found
 * in the message at search time (query/extract): an event that stores the field is compared on its
 * stored value as always; one that does not is compared on the text found, and there `=` is text
 * equality (Splunk's rule; `404` does not equal `0404`), which keeps the value's words in the
 * message. So the token filter may prune blocks (compile.ts, fieldTokens), and
 * fast path: the message is read for the value only when it has the value's words at all (the
 * cheap test of a search term), e.g. `status=404` costs little more than the term `404`.
 */
export function compileField(f: FieldFilter, schema: Schema, extracted?: ReadonlyMap<string, ExtractedValue>): string {
  const stored = colRef(schema, f.field);
  const found = extracted?.get(f.field);
  if (found === undefined) return compileOn(f, stored);
  const literal = !f.value.includes('*');
  // a date_* value is not in the text: no gate (its own words need not be in the message)
  const gate =
    f.op === '=' && literal && !isDateField(f.field) && valueSpelledInText(f.value) && /[A-Za-z0-9_]/.test(f.value)
      ? matchMessageSql(f.value, false)
      : undefined;
  const text = compileOn(f, { sql: found(gate), type: 'str' });
  return stored.sql === 'NULL'
    ? text
    : `(CASE WHEN ${stored.sql} IS NOT NULL THEN ${compileOn(f, stored)} ELSE ${text} END)`;
}

/**
 * `field=v1 OR field=v2 OR …` (literal values, case ignored: what `IN (…)` and a subsearch's rows
 * make) as one membership test, equal to the OR of compileField's: the value found in the message
 * is computed once, not once per value, which makes a subsearch of hundreds of clients cost about
 * what one filter does. Undefined when the column is a multivalue (compileField then takes each).
 */
export function compileFieldIn(
  field: string,
  values: string[],
  schema: Schema,
  extracted?: ReadonlyMap<string, ExtractedValue>,
): string | undefined {
  const stored = colRef(schema, field);
  if (stored.type === 'list') return undefined;
  const found = extracted?.get(field);
  if (found === undefined) return inSql(values, stored);
  // as compileField's gate, for a few values: the message must hold one of them
  const gated =
    values.length <= 8 && !isDateField(field) && values.every((v) => valueSpelledInText(v) && /[A-Za-z0-9_]/.test(v));
  const gate = gated ? `(${values.map((v) => matchMessageSql(v, false)).join(' OR ')})` : undefined;
  const text = inSql(values, { sql: found(gate), type: 'str' });
  return stored.sql === 'NULL'
    ? text
    : `(CASE WHEN ${stored.sql} IS NOT NULL THEN ${inSql(values, stored)} ELSE ${text} END)`;
}

/** equalsSql of each value, OR-ed, as IN lists: numbers numerically unless the column is text. */
function inSql(values: string[], col: ColRef): string {
  if (col.sql === 'NULL') return 'FALSE';
  const text = col.type === 'str' ? col.sql : asText(col.sql);
  const numbers = col.type === 'str' ? [] : values.flatMap((v) => numericValue(v) ?? []);
  const words = col.type === 'str' ? values : values.filter((v) => numericValue(v) === undefined);
  const tests = [
    ...(numbers.length ? [`${asNumber(col.sql)} IN (${numbers.map(num).join(', ')})`] : []),
    ...(words.length ? [`lower(${text}) IN (${[...new Set(words.map((w) => str(w.toLowerCase())))].join(', ')})`] : []),
  ];
  return `coalesce(${tests.join(' OR ')}, FALSE)`;
}

function compileOn(f: FieldFilter, col: ColRef): string {
  if (col.sql === 'NULL') return 'FALSE';
  if (col.type === 'list') {
    // a multivalue (`a{}.b`) matches when one of its values does (Splunk); `!=` when none equals
    const matches = `len(list_filter(${col.sql}, mv_ -> ${compileOn({ ...f, op: f.op === '!=' ? '=' : f.op }, { sql: 'mv_', type: 'any' })})) > 0`;
    return f.op === '!=' ? `coalesce(${col.sql} IS NOT NULL AND NOT ${matches}, FALSE)` : `coalesce(${matches}, FALSE)`;
  }
  if (f.op === '=') return `coalesce(${equalsSql(f, col)}, FALSE)`;
  if (f.op === '!=') return `coalesce(${col.sql} IS NOT NULL AND NOT ${equalsSql(f, col)}, FALSE)`;
  const n = numericValue(f.value);
  if (n !== undefined && col.type !== 'time') return `coalesce(${asNumber(col.sql)} ${f.op} ${num(n)}, FALSE)`;
  if (col.type === 'time') return `coalesce(${col.sql} ${f.op} TRY_CAST(${str(f.value)} AS TIMESTAMP), FALSE)`;
  return `coalesce(${asText(col.sql)} ${f.op} ${str(f.value)}, FALSE)`;
}
