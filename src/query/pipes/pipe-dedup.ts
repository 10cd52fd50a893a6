import { doc } from '../doc.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `dedup [N] f[, g]`: keeps the first N rows (default 1, in the current order) of each value
 * combination; rows lacking a field are dropped.
 */
export interface DedupPipe {
  kind: 'dedup';
  keep?: number;
  fields: string[];
}

export const dedupPipe: PipeDef<DedupPipe> = {
  name: 'dedup',
  doc: doc(
    'dedup [N] <field>[, <field>…]',
    'Keeps the first event (or the first N) of each combination of values in the current order; events without the fields are dropped.',
    '* | dedup host',
  ),
  parse: (p) => {
    const keep = p.intAhead() ? p.positiveInt('a row count') : undefined;
    return { kind: 'dedup', keep, fields: p.fieldList('a field name') };
  },
  print: (n) => `dedup ${n.keep !== undefined ? `${n.keep} ` : ''}${printListNames(n.fields)}`,
  reads: (n) => n.fields,
  writes: () => [],
  compile(n, b) {
    const cols = n.fields.map((f) => b.col(f).sql);
    const where = cols.map((c) => `${c} IS NOT NULL`).join(' AND ');
    b.push(
      `SELECT * FROM ${b.cur} WHERE ${where} QUALIFY row_number() OVER (PARTITION BY ${cols.join(', ')}${b.orderBy()}) <= ${n.keep ?? 1}`,
    );
  },
};
