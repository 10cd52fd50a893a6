import { doc } from '../doc.js';
import { toNum, toStr } from '../expr/coerce.js';
import type { ColRef } from '../schema.js';
import { ipNumber } from '../expr/ip.js';
import type { OrderKey } from '../stages.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';
import type { Parser } from '../parser-api.js';

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

/** `N` or `limit=N` before the keys; 0 (Splunk: every row) is no limit. */
function parseLimit(p: Parser): number | undefined {
  const t = p.peek('expr');
  if (t.kind === 'ident' && t.raw.toLowerCase() === 'limit') {
    p.next('expr');
    p.expectOp('=', 'expr');
  } else if (!p.intAhead()) return undefined;
  if (p.peek('expr').text === '0') {
    p.next('expr');
    return undefined;
  }
  return p.positiveInt('a row count');
}

export const sortPipe: PipeDef<SortPipe> = {
  name: 'sort',
  doc: doc(
    'sort [N|limit=N] [-]<field>[, [-]<field>…] [desc]',
    'Orders the rows by the fields (- for descending, num(), str() or ip() to say how to compare, desc at the end reverses all) and with N (not 0) keeps the first N.',
    '* | stats count by host | sort -count',
  ),
  parse(p) {
    const limit = parseLimit(p);
    const items = p.listItems('a field to sort by', { signs: true, fns: [...SORT_FNS] });
    // Splunk's trailing `desc` reverses the whole order (`sort count desc`, `sort -count desc`)
    const last = items[items.length - 1];
    const reverse = items.length > 1 && last.name.toLowerCase() === 'desc' && last.sign === '' && !last.fn;
    if (reverse) items.pop();
    return {
      kind: 'sort',
      limit,
      keys: items.map((i) => ({
        field: i.name,
        desc: (i.sign === '-') !== reverse,
        ...(i.fn ? { fn: i.fn as SortFn } : {}),
      })),
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
