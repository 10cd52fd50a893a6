import type { ColRef } from '../schema.js';
import { CORE_NAMES } from '../schema.js';
import { toStr } from '../expr/coerce.js';
import { printListName } from './field-names.js';
import { str } from '../sql.js';

/**
 * SQL that writes the rows of a stage as search text, for `format` and `return`: what a subsearch
 * hands its outer search (query/subsearch.ts reads such a `search` field back as written).
 */

/** SQL of a value as a quoted search-language string: `"a \"b\""`. */
export function quotedSql(text: string): string {
  return `'"' || replace(replace(${text}, '\\', '\\\\'), '"', '\\"') || '"'`;
}

/**
 * `name="value"` for one column, NULL when the row has no value; a multivalue gives each value
 * joined by ` <mvsep> ` in parentheses. A core field that a pipe blanked (`| fields x` keeps the
 * event's shape with empty core fields) has no value.
 */
export function cellSql(name: string, col: ColRef, mvsep = 'OR', valueOnly = false): string {
  const prefix = valueOnly ? '' : `${str(`${printListName(name)}=`)} || `;
  if (col.type === 'list') {
    const each = `list_transform(list_filter(CAST(${col.sql} AS VARCHAR[]), v -> v IS NOT NULL), v -> ${prefix}${valueOnly ? 'v' : quotedSql('v')})`;
    return `CASE WHEN len(list_filter(${col.sql}, v -> v IS NOT NULL)) > 0 THEN '( ' || array_to_string(${each}, ${str(` ${mvsep} `)}) || ' )' END`;
  }
  const text = toStr(col);
  const blank = CORE_NAMES.has(name) ? ` OR ${text} = ''` : '';
  return `CASE WHEN ${col.sql} IS NULL${blank} THEN NULL ELSE ${prefix}${valueOnly ? text : quotedSql(text)} END`;
}

/** Columns a row's search text is made of: not `_time`, `_raw` or any `_` field (Splunk's rule), not env (svc's own) or the message. */
export function formattable(names: Iterable<string>): string[] {
  return [...names].filter((n) => !n.startsWith('_') && n !== 'env' && n !== 'message');
}
