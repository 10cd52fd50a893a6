import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { expandPattern } from '../schema.js';
import { ident, str } from '../sql.js';
import { pipeError } from '../stages.js';
import { printListName, printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `addcoltotals [labelfield=<field>] [label=<text>] [<field> …]` (Splunk's addcoltotals): one more
 * row after the others holding, for each field, the sum of its values that are numbers (a field
 * with none gets no total); the named fields (`*` wildcards) or every field but `_time`, the
 * `_`-prefixed ones and multivalues. With `labelfield`, that field of the totals row holds `label`
 * (default `Total`), the field added when the rows lack it. The rows before keep their order; no
 * rows, no totals row. A
 * total of a field typed as text is written as Splunk prints numbers (`12`, `2.5`).
 */
export interface AddcoltotalsPipe {
  kind: 'addcoltotals';
  labelfield?: string;
  label: string;
  fields: string[];
}

const OPTIONS = ['labelfield', 'label'];

function optionValue(p: Parser, name: string): string {
  const t = p.next('search');
  if ((t.kind !== 'word' && t.kind !== 'string') || t.text === '')
    throw p.fail(`unexpected ${describe(t)}: missing a value after "${name}="`, t);
  return t.text;
}

function parseAddcoltotals(p: Parser): AddcoltotalsPipe {
  const n: AddcoltotalsPipe = { kind: 'addcoltotals', label: 'Total', fields: [] };
  const given = new Set<string>();
  const readOptions = () => {
    for (;;) {
      const t = p.peek('search');
      const name = t.kind === 'word' ? t.text.toLowerCase() : '';
      if (!OPTIONS.includes(name)) return;
      p.next('search');
      if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${name}"`);
      if (given.has(name)) throw p.fail(`"${name}" is given twice`, t);
      given.add(name);
      if (name === 'label') n.label = optionValue(p, name);
      else n.labelfield = optionValue(p, name);
    }
  };
  readOptions();
  n.fields = p.atPipeEnd() ? [] : p.fieldList('a field to total', { stop: OPTIONS, allowEmpty: true });
  readOptions();
  return n;
}

function printAddcoltotals(n: AddcoltotalsPipe): string {
  const parts = ['addcoltotals'];
  if (n.labelfield !== undefined) parts.push(`labelfield=${printListName(n.labelfield)}`);
  if (n.label !== 'Total') parts.push(`label=${/^[\w.-]+$/.test(n.label) ? n.label : quoteString(n.label)}`);
  if (n.fields.length) parts.push(printListNames(n.fields, ' '));
  return parts.join(' ');
}

/** A sum as Splunk prints a number: whole numbers without a fraction. */
const numberText = (sum: string) =>
  `(CASE WHEN ${sum} = trunc(${sum}) AND abs(${sum}) < 1e15 THEN CAST(CAST(${sum} AS BIGINT) AS VARCHAR) ELSE CAST(${sum} AS VARCHAR) END)`;

export const addcoltotalsPipe: PipeDef<AddcoltotalsPipe> = {
  name: 'addcoltotals',
  doc: doc(
    'addcoltotals [labelfield=<field>] [label=<text>] [<field> …]',
    'Adds a last row holding the sum of each numeric field (or of the named ones), labelled in labelfield.',
    '* | stats count, sum(bytes) as bytes by host | addcoltotals labelfield=host',
  ),
  parse: parseAddcoltotals,
  print: printAddcoltotals,
  reads: (n) => (n.fields.length ? n.fields : '*'),
  writes: (n) => (n.labelfield === undefined ? [] : [n.labelfield]),
  compile(n, b) {
    if (b.mode === 'events')
      throw pipeError('addcoltotals', 'it totals the columns of a table: put it after stats, chart or table');
    const names = n.fields.length
      ? [...new Set(n.fields.flatMap((f) => expandPattern(b.schema, f)))]
      : [...b.schema.keys()].filter((f) => !f.startsWith('_'));
    const totals: string[] = [];
    const schema = new Map(b.schema);
    for (const f of names) {
      const type = b.schema.get(f);
      if (f === n.labelfield || type === undefined || type === 'list' || type === 'time' || type === 'bool') continue;
      const col = ident(f);
      if (type === 'num') totals.push(`CAST(sum(${col}) AS DOUBLE) AS ${col}`);
      else totals.push(`${numberText(`sum(TRY_CAST(CAST(${col} AS VARCHAR) AS DOUBLE))`)} AS ${col}`);
    }
    if (n.labelfield !== undefined) {
      totals.push(`${str(n.label)} AS ${ident(n.labelfield)}`);
      const before = b.schema.get(n.labelfield);
      schema.set(n.labelfield, before === undefined || before === 'str' ? 'str' : 'any');
    }
    // the totals row sorts after every other row, whatever their order
    // no rows, no totals row: there is nothing to total
    const totalsRow = `SELECT ${[...totals, '1 AS __tot'].join(', ')} FROM ${b.cur} HAVING count(*) > 0`;
    b.push(`SELECT *, 0 AS __tot FROM ${b.cur} UNION ALL BY NAME ${totalsRow}`, schema);
    b.order = [{ sql: '__tot', desc: false, cols: ['__tot'] }, ...b.order];
  },
};
