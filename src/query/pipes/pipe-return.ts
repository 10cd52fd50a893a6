import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { cellSql } from './search-text-sql.js';

/**
 * `return [<count>] [<alias>=]<field>… | $<field>…` (Splunk's return): the first count rows (default
 * 1) become one row whose `search` field is search text for a subsearch: `field="value"` (under
 * the alias when given) or, for `$field`, the value alone; a row's items joined by spaces, several
 * rows each in parentheses joined by OR. A row without any of the fields is skipped.
 */
export interface ReturnPipe {
  kind: 'return';
  count: number;
  items: { field: string; alias?: string; valueOnly: boolean }[];
}

function parseReturn(p: Parser): ReturnPipe {
  const n: ReturnPipe = { kind: 'return', count: 1, items: [] };
  if (p.intAhead()) n.count = p.positiveInt('a count of rows');
  while (!p.atPipeEnd()) {
    const t = p.peek('expr');
    if (t.kind === 'op' && t.text === ',') {
      p.next('expr');
      continue;
    }
    if (t.kind === 'op' && t.text === '$') {
      p.next('expr');
      n.items.push({ field: p.fieldName('a field after "$"'), valueOnly: true });
      continue;
    }
    if (t.kind !== 'ident' && t.kind !== 'string')
      throw p.fail(`unexpected ${describe(t)}: missing a field to return`, t);
    const name = p.fieldName('a field to return');
    if (p.acceptOp('=', 'expr'))
      n.items.push({ alias: name, field: p.fieldName('a field after "="'), valueOnly: false });
    else n.items.push({ field: name, valueOnly: false });
  }
  if (n.items.length === 0) throw p.fail('return takes at least one field', p.peek('expr'));
  return n;
}

function printReturn(n: ReturnPipe): string {
  const items = n.items.map((i) =>
    i.valueOnly
      ? `$${printListName(i.field)}`
      : i.alias
        ? `${printListName(i.alias)}=${printListName(i.field)}`
        : printListName(i.field),
  );
  return `return ${n.count === 1 ? '' : `${n.count} `}${items.join(' ')}`;
}

export const returnPipe: PipeDef<ReturnPipe> = {
  name: 'return',
  doc: doc(
    'return [<count>] [<alias>=]<field>… | $<field>…',
    'Turns the first rows (default 1) into one row whose search field is search text, field="value" or the value alone ($field), for a subsearch.',
    'status=500 | stats count by clientip | sort -count | return 3 clientip',
  ),
  parse: parseReturn,
  print: printReturn,
  reads: (n) => n.items.map((i) => i.field),
  writes: () => 'all',
  compile(n, b) {
    const cells = n.items.map((i) =>
      i.valueOnly ? cellSql(i.field, b.col(i.field), 'OR', true) : cellSql(i.alias ?? i.field, b.col(i.field)),
    );
    const row = `nullif(concat_ws(' ', ${cells.join(', ')}), '')`;
    const ord = b.order.length ? b.orderSql() : '1';
    const first = `SELECT ${row} AS r, row_number() OVER (ORDER BY ${ord}) AS k FROM ${b.cur}`;
    const text =
      n.count === 1
        ? `coalesce(max(r), '')`
        : `coalesce(CASE WHEN count(r) = 1 THEN max(r) ELSE string_agg('(' || r || ')', ' OR ' ORDER BY k) END, '')`;
    b.push(
      `SELECT ${text} AS search FROM (${first}) WHERE k <= ${n.count} AND r IS NOT NULL`,
      new Map([['search', 'str']]),
    );
    b.order = [];
    b.mode = 'table';
  },
};
