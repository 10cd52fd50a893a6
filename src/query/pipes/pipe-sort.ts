import { doc } from '../doc.js';
import { toNum, toStr } from '../expr/coerce.js';
import type { ColRef } from '../schema.js';
import { str } from '../sql.js';
import type { OrderKey } from '../stages.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/** Splunk's sort functions: how a key's values compare. */
export const SORT_FNS = ['num', 'str', 'ip'] as const;
export type SortFn = (typeof SORT_FNS)[number];

/**
 * `sort [N] [-|+]f, ...`: orders rows by the fields (`-` descending); numbers sort numerically.
 * A key may name how to compare: `num(f)` numerically (values that are not numbers count as null),
 * `str(f)` as text (so `"10" < "9"`), `ip(f)` as IPv4 addresses (others after them, as text).
 * With N, keeps the first N rows.
 */
export interface SortPipe {
  kind: 'sort';
  limit?: number;
  keys: { field: string; desc: boolean; fn?: SortFn }[];
}

/** One octet 0-255 without leading zeros, so that only real dotted quads get an address order. */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/** An IPv4 address as a number (NULL for anything else), e.g. 10.0.0.2 < 10.0.0.10. */
function ipNumber(text: string): string {
  const octet = (i: number) => `CAST(split_part(${text}, '.', ${i}) AS BIGINT)`;
  return `CASE WHEN regexp_full_match(${text}, ${str(IPV4)}) THEN ((${octet(1)} * 256 + ${octet(2)}) * 256 + ${octet(3)}) * 256 + ${octet(4)} END`;
}

/** The ORDER BY expressions of one key, in priority order. */
function keySql(c: ColRef, fn: SortFn | undefined): string[] {
  if (fn === 'num') return [toNum(c)];
  if (fn === 'str') return [toStr(c)];
  if (fn === 'ip') return [ipNumber(toStr(c)), toStr(c)];
  // user fields of unknown type: numbers first, in numeric order, then text
  if (c.type === 'any') return [toNum(c), toStr(c)];
  return [c.type === 'list' ? toStr(c) : c.sql];
}

function printKey(k: SortPipe['keys'][number]): string {
  const name = printListName(k.field);
  return `${k.desc ? '-' : ''}${k.fn ? `${k.fn}(${name})` : name}`;
}

export const sortPipe: PipeDef<SortPipe> = {
  name: 'sort',
  doc: doc(
    'sort [N] [-]<field>[, [-]<field>…]',
    'Orders the rows by the fields (- for descending, num(), str() or ip() to say how to compare) and with N keeps the first N.',
    '* | stats count by host | sort -count',
  ),
  parse(p) {
    const limit = p.intAhead() ? p.positiveInt('a row count') : undefined;
    const items = p.listItems('a field to sort by', { signs: true, fns: [...SORT_FNS] });
    return {
      kind: 'sort',
      limit,
      keys: items.map((i) => ({ field: i.name, desc: i.sign === '-', ...(i.fn ? { fn: i.fn as SortFn } : {}) })),
    };
  },
  print: (n) => `sort ${n.limit !== undefined ? `${n.limit} ` : ''}${n.keys.map(printKey).join(', ')}`,
  reads: (n) => n.keys.map((k) => k.field),
  writes: () => [],
  compile(n, b) {
    const order: OrderKey[] = [];
    for (const k of n.keys) {
      const c = b.col(k.field);
      if (c.sql === 'NULL') continue;
      for (const sql of keySql(c, k.fn)) order.push({ sql, desc: k.desc, cols: [k.field] });
    }
    b.order = order;
    if (n.limit !== undefined) b.push(`SELECT * FROM ${b.cur}${b.orderBy()} LIMIT ${n.limit}`);
  },
};
