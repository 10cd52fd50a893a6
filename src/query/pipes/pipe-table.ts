import { doc } from '../doc.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { expandNames, project } from './projection.js';

/** `table a b c`: the result becomes a table of those columns, rows in the current order. */
export interface TablePipe {
  kind: 'table';
  names: string[];
}

export const tablePipe: PipeDef<TablePipe> = {
  name: 'table',
  doc: doc(
    'table <field> [<field>…]',
    'Turns the results into a table of the named columns, in the current row order.',
    '* | table _time host message',
  ),
  parse: (p) => ({ kind: 'table', names: p.fieldList('a field name') }),
  print: (n) => `table ${printListNames(n.names, ' ')}`,
  reads: (n) => (n.names.some((x) => x.includes('*')) ? '*' : n.names),
  writes: () => 'all',
  compile(n, b) {
    project(b, expandNames(b, n.names), 'table');
    b.mode = 'table';
  },
};
