import { quoteString } from '../lexer.js';
import { colRef, type Schema } from '../schema.js';
import { asNumber, asText, likeEscape, num, numericValue, str } from '../sql.js';

export type FieldOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * `field=value`, `field:value` (printed as `=`), `field!=value` and the comparisons.
 * Equality is case-insensitive on the whole value; an unquoted `*` is a wildcard, a quoted value is
 * literal. A numeric value compares numerically whatever the column's storage type.
 */
export interface FieldFilter {
  kind: 'field';
  field: string;
  op: FieldOp;
  value: string;
  quoted: boolean;
}

export function printField(f: FieldFilter): string {
  return `${f.field}${f.op}${f.quoted ? quoteString(f.value) : f.value}`;
}

function equalsSql(f: FieldFilter, col: { sql: string; type: string }): string {
  const text = col.type === 'str' ? col.sql : asText(col.sql);
  if (!f.quoted && f.value.includes('*')) {
    if (/^\*+$/.test(f.value)) return `(${col.sql} IS NOT NULL)`;
    const pattern = f.value.toLowerCase().split('*').map(likeEscape).join('%');
    return `(lower(${text}) LIKE ${str(pattern)} ESCAPE '\\')`;
  }
  const n = numericValue(f.value);
  if (n !== undefined && col.type !== 'str') return `(${asNumber(col.sql)} = ${num(n)})`;
  return `(lower(${text}) = ${str(f.value.toLowerCase())})`;
}

export function compileField(f: FieldFilter, schema: Schema): string {
  const col = colRef(schema, f.field);
  if (col.sql === 'NULL') return f.op === '!=' ? 'FALSE' : 'FALSE';
  if (f.op === '=') return `coalesce(${equalsSql(f, col)}, FALSE)`;
  if (f.op === '!=') return `coalesce(${col.sql} IS NOT NULL AND NOT ${equalsSql(f, col)}, FALSE)`;
  const n = numericValue(f.value);
  if (n !== undefined && col.type !== 'time') return `coalesce(${asNumber(col.sql)} ${f.op} ${num(n)}, FALSE)`;
  if (col.type === 'time') return `coalesce(${col.sql} ${f.op} TRY_CAST(${str(f.value)} AS TIMESTAMP), FALSE)`;
  return `coalesce(${asText(col.sql)} ${f.op} ${str(f.value)}, FALSE)`;
}
