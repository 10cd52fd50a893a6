import type { PipeDef } from './pipe.js';

/** `dedup f[, g]`: keeps the first row (in the current order) of each value combination; rows lacking a field are dropped. */
export interface DedupPipe {
  kind: 'dedup';
  fields: string[];
}

export const dedupPipe: PipeDef<DedupPipe> = {
  name: 'dedup',
  parse: (p) => ({ kind: 'dedup', fields: p.fieldList('a field name') }),
  print: (n) => `dedup ${n.fields.join(', ')}`,
  reads: (n) => n.fields,
  writes: () => [],
  compile(n, b) {
    const cols = n.fields.map((f) => b.col(f).sql);
    const where = cols.map((c) => `${c} IS NOT NULL`).join(' AND ');
    b.push(`SELECT * FROM ${b.cur} WHERE ${where} QUALIFY row_number() OVER (PARTITION BY ${cols.join(', ')}${b.orderBy()}) = 1`);
  },
};
