import { describe, printIdent, type Token } from '../lexer.js';
import type { Parser } from '../parser.js';
import { toNum, toStr } from '../expr/coerce.js';
import type { ColRef, ColType } from '../schema.js';
import type { StageBuilder } from '../stages.js';

/** One aggregation of `stats` / `timechart`: `count`, `avg(bytes)`, `p95(ms) as slow`. */
export interface Agg {
  fn: string;
  field?: string;
  alias?: string;
}

const SIMPLE = new Set(['count', 'sum', 'avg', 'min', 'max', 'dc', 'values', 'median']);
const PERCENTILE = /^p([1-9][0-9]?)$/;

export function isAggName(name: string): boolean {
  return SIMPLE.has(name) || PERCENTILE.test(name);
}

/** The output column of an aggregation: its alias, else `fn(field)` or `count`. */
export function aggName(a: Agg): string {
  return a.alias ?? (a.field === undefined ? a.fn : `${a.fn}(${a.field})`);
}

export function printAgg(a: Agg): string {
  const base = a.field === undefined ? a.fn : `${a.fn}(${printIdent(a.field)})`;
  return a.alias === undefined ? base : `${base} as ${printIdent(a.alias)}`;
}

function parseAgg(p: Parser, t: Token): Agg {
  const fn = t.text.toLowerCase();
  if (t.kind !== 'ident' || !isAggName(fn)) throw p.fail(`unexpected ${describe(t)}: missing an aggregation (count, sum, avg, min, max, dc, values, p50, p95, p99)`, t);
  const agg: Agg = { fn };
  const open = p.peek('expr');
  if (open.kind === 'op' && open.text === '(') {
    p.next('expr');
    agg.field = p.fieldName(`a field for "${fn}"`);
    p.expectOp(')', 'expr');
  } else if (fn !== 'count') {
    throw p.fail(`unexpected ${describe(open)}: missing "(field)" after "${fn}"`, open);
  }
  if (p.acceptKeyword('as')) agg.alias = p.fieldName(`a name after "as"`);
  return agg;
}

/** Aggregations separated by commas or spaces, up to `by`, `|` or the end. */
export function parseAggs(p: Parser): Agg[] {
  const aggs: Agg[] = [];
  for (;;) {
    const t = p.peek('expr');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|') || (t.kind === 'ident' && t.raw.toLowerCase() === 'by')) break;
    if (aggs.length > 0 && p.acceptOp(',', 'expr')) continue;
    aggs.push(parseAgg(p, p.next('expr')));
  }
  if (aggs.length === 0) throw p.fail(`unexpected ${describe(p.peek('expr'))}: missing an aggregation`, p.peek('expr'));
  return aggs;
}

/** SQL of one aggregation over the current stage, with its result type. */
export function aggSql(a: Agg, b: StageBuilder): { sql: string; type: ColType } {
  const col: ColRef = a.field === undefined ? { sql: '*', type: 'any' } : b.col(a.field);
  const pm = PERCENTILE.exec(a.fn);
  if (pm || a.fn === 'median') {
    const q = pm ? Number(pm[1]) / 100 : 0.5;
    return { sql: `quantile_cont(${toNum(col)}, ${q})`, type: 'num' };
  }
  switch (a.fn) {
    case 'count':
      return { sql: `count(${col.sql})`, type: 'num' };
    case 'sum':
    case 'avg':
      return { sql: `${a.fn}(${toNum(col)})`, type: 'num' };
    case 'min':
    case 'max':
      if (col.type === 'time' || col.type === 'str') return { sql: `${a.fn}(${col.sql})`, type: col.type };
      return { sql: `${a.fn}(${toNum(col)})`, type: 'num' };
    case 'dc':
      return { sql: `count(DISTINCT ${col.sql})`, type: 'num' };
    case 'values':
      // Splunk's values(): distinct values, sorted, capped
      return { sql: `list_slice(list_sort(list(DISTINCT ${toStr(col)})), 1, 100)`, type: 'list' };
    default:
      throw new Error(`BUG: unknown aggregation ${a.fn}`);
  }
}
