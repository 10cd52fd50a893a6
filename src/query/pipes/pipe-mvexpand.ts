import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import { ident } from '../sql.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `mvexpand <field> [limit=N]` (Splunk's mvexpand): one row per value of a multivalue field
 * (values(), makemv, a JSON array), the other fields copied; `limit` keeps the first N values of
 * each row. A single value stays one row; a row without the field (or with no values) is dropped,
 * as in Splunk. The rows keep their order, each row's values in list order.
 */
export interface MvexpandPipe {
  kind: 'mvexpand';
  field: string;
  limit?: number;
}

export const mvexpandPipe: PipeDef<MvexpandPipe> = {
  name: 'mvexpand',
  doc: doc(
    'mvexpand <field> [limit=<N>]',
    'Makes one row per value of a multivalue field, copying the other fields; rows without it are dropped.',
    '* | stats values(status) as status by host | mvexpand status',
  ),
  parse(p) {
    const readLimit = () => {
      if (!p.acceptKeyword('limit')) return undefined;
      p.expectOp('=', 'expr');
      const t = p.peek('expr');
      if (t.kind === 'number' && t.text === '0') {
        p.next('expr');
        return 0; // Splunk: 0 is no limit
      }
      return p.positiveInt('a value count after "limit="');
    };
    let limit = readLimit();
    const names = p.listItems('a field to expand', { stop: ['limit'] }).map((i) => i.name);
    if (names.length !== 1 || names[0].includes('*'))
      throw p.fail(
        `mvexpand takes one field without wildcards, not ${JSON.stringify(names.join(' '))}`,
        p.peek('search'),
      );
    if (limit === undefined) limit = readLimit();
    else if (p.peek('expr').kind === 'ident' && p.peek('expr').raw.toLowerCase() === 'limit')
      throw p.fail(`${describe(p.peek('expr'))} is given twice`, p.peek('expr'));
    return { kind: 'mvexpand', field: names[0], limit: limit === 0 ? undefined : limit };
  },
  print: (n) => `mvexpand ${printListName(n.field)}${n.limit !== undefined ? ` limit=${n.limit}` : ''}`,
  reads: (n) => [n.field],
  writes: (n) => [n.field],
  compile(n, b) {
    const col = b.col(n.field);
    if (col.type !== 'list') {
      b.push(`SELECT * FROM ${b.cur} WHERE ${col.sql} IS NOT NULL`);
      return;
    }
    const f = ident(n.field);
    const list = n.limit === undefined ? f : `list_slice(${f}, 1, ${n.limit})`;
    // number the rows first: their order (and each row's values in list order) survives as __ord
    const before = `SELECT *, row_number() OVER (${b.orderBy().trim()}) AS __mvrow FROM ${b.cur}`;
    const expanded = `SELECT * EXCLUDE (${f}), unnest(${list}) AS __mvval, generate_subscripts(${list}, 1) AS __mvi FROM (${before})`;
    const schema = new Map(b.schema);
    schema.set(n.field, 'any');
    const cols = [...b.schema.keys()].map((k) => (k === n.field ? `__mvval AS ${f}` : ident(k))).join(', ');
    b.push(`SELECT ${cols}, row_number() OVER (ORDER BY __mvrow, __mvi) AS __ord FROM (${expanded})`, schema);
    b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
  },
};
