import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { CORE_NAMES } from '../schema.js';
import { ident, str } from '../sql.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import type { Parser } from '../parser-api.js';

/**
 * `fillnull [value=X] [field, …]`: gives fields without a value one (default 0), the named fields
 * or, without names, every field the results carry except the core ones.
 */
export interface FillnullPipe {
  kind: 'fillnull';
  value: string;
  fields: string[];
}

/** `value=X` when it comes next. */
function parseValue(p: Parser): string | undefined {
  const t = p.peek('expr');
  if (t.kind !== 'ident' || t.raw.toLowerCase() !== 'value') return undefined;
  p.next('expr');
  p.expectOp('=', 'expr');
  const minus = p.acceptOp('-', 'expr');
  const v = p.next('expr');
  if (minus ? v.kind !== 'number' : v.kind !== 'string' && v.kind !== 'number' && v.kind !== 'ident')
    throw p.fail(`unexpected ${describe(v)}: missing a value after "value="`, v);
  return minus ? `-${v.text}` : v.text;
}

export const fillnullPipe: PipeDef<FillnullPipe> = {
  name: 'fillnull',
  doc: doc(
    'fillnull [value=<value>] [<field>, …]',
    'Gives the fields that have no value one: 0, or the value given; the named fields, or every field but the core ones.',
    '* | fillnull value="n/a" user, session',
  ),
  parse(p) {
    // value= before the fields or, as Splunk also takes it, after them
    let value = parseValue(p);
    const fields = p.atPipeEnd()
      ? []
      : p.fieldList('a field name', { stop: ['value'], allowEmpty: value !== undefined });
    const after = p.peek('expr');
    const later = parseValue(p);
    if (later !== undefined && value !== undefined) throw p.fail(`${describe(after)} is given twice`, after);
    value ??= later;
    return { kind: 'fillnull', value: value ?? '0', fields };
  },
  print: (n) =>
    `fillnull${n.value === '0' ? '' : ` value=${/^-?\d+(\.\d+)?$/.test(n.value) ? n.value : quoteString(n.value)}`}${n.fields.length ? ` ${printListNames(n.fields)}` : ''}`,
  reads: (n) => (n.fields.length ? n.fields : '*'),
  writes: (n) => n.fields,
  compile(n, b) {
    const names = n.fields.length ? n.fields : [...b.schema.keys()].filter((f) => !CORE_NAMES.has(f) && f !== '_time');
    const numeric = /^-?\d+(\.\d+)?$/.test(n.value);
    b.setColumns(
      [...new Set(names)].map((f) => {
        const type = b.schema.get(f);
        // a number stays a number in a numeric (or absent) column; anywhere else the value is text
        const keepsNumber = numeric && (type === 'num' || type === undefined);
        const fill = keepsNumber ? n.value : str(n.value);
        const sql =
          type === undefined ? fill : `COALESCE(${keepsNumber ? ident(f) : `CAST(${ident(f)} AS VARCHAR)`}, ${fill})`;
        return { name: f, sql, type: keepsNumber ? 'num' : 'str' };
      }),
    );
  },
};
