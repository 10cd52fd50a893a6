import { toNum, toStr } from '../expr/coerce.js';
import { ident } from '../sql.js';
import type { OrderKey } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `sort [N] [-|+]f, ...`: orders rows by the fields (`-` descending); numbers sort numerically.
 * With N, keeps the first N rows.
 */
export interface SortPipe {
  kind: 'sort';
  limit?: number;
  keys: { field: string; desc: boolean }[];
}

export const sortPipe: PipeDef<SortPipe> = {
  name: 'sort',
  parse(p) {
    const limit = p.intAhead() ? p.positiveInt('a row count') : undefined;
    const keys = p.fieldList('a field to sort by', { signs: true }).map((f) => ({ field: f.replace(/^[+-]/, ''), desc: f.startsWith('-') }));
    return { kind: 'sort', limit, keys };
  },
  print: (n) => `sort ${n.limit !== undefined ? `${n.limit} ` : ''}${n.keys.map((k) => `${k.desc ? '-' : ''}${k.field}`).join(', ')}`,
  reads: (n) => n.keys.map((k) => k.field),
  writes: () => [],
  compile(n, b) {
    const order: OrderKey[] = [];
    for (const k of n.keys) {
      const c = b.col(k.field);
      if (c.sql === 'NULL') continue;
      if (c.type === 'any') {
        // user fields of unknown type: numbers first, in numeric order, then text
        order.push({ sql: toNum(c), desc: k.desc, cols: [k.field] }, { sql: toStr(c), desc: k.desc, cols: [k.field] });
      } else order.push({ sql: c.type === 'list' ? toStr(c) : ident(k.field), desc: k.desc, cols: [k.field] });
    }
    b.order = order;
    if (n.limit !== undefined) b.push(`SELECT * FROM ${b.cur}${b.orderBy()} LIMIT ${n.limit}`);
  },
};
