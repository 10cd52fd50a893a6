import { doc, type ConstructDoc } from '../doc.js';
import { describe, printIdent, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { toNum, toStr } from '../expr/coerce.js';
import type { ColRef, ColType } from '../schema.js';
import type { StageBuilder } from '../stages.js';

/** One aggregation of `stats` / `timechart`: `count`, `avg(bytes)`, `p95(ms) as slow`. */
export interface Agg {
  fn: string;
  field?: string;
  alias?: string;
}

type AggSql = { sql: string; type: ColType };

/**
 * One aggregation: its reference entry and its SQL over the stage's column (`*` for bare count).
 * `over` follows the aggregate call itself (`count(x) OVER (…)`), so eventstats can run it as a
 * window function; stats gives ''.
 */
interface AggDef {
  doc: ConstructDoc;
  sql(col: ColRef, over: string): AggSql;
}

const quantile = (col: ColRef, q: number, over: string): AggSql => ({
  sql: `quantile_cont(${toNum(col)}, ${q})${over}`,
  type: 'num',
});
const numeric =
  (fn: string) =>
  (col: ColRef, over: string): AggSql => ({ sql: `${fn}(${toNum(col)})${over}`, type: 'num' });
/** min/max keep text and times as they are (text core fields, _time), else compare numbers. */
const extreme =
  (fn: string) =>
  (col: ColRef, over: string): AggSql =>
    col.type === 'time' || col.type === 'str'
      ? { sql: `${fn}(${col.sql})${over}`, type: col.type }
      : numeric(fn)(col, over);

const AGGS: Record<string, AggDef> = {
  count: {
    doc: doc(
      'count | count(field)',
      'Counts the events, or with a field the events where it is not null.',
      '* | stats count by host',
    ),
    sql: (col, over) => ({ sql: `count(${col.sql})${over}`, type: 'num' }),
  },
  sum: {
    doc: doc('sum(field)', 'Adds up the numeric values of a field.', '* | stats sum(bytes) by host'),
    sql: numeric('sum'),
  },
  avg: {
    doc: doc(
      'avg(field)',
      'The mean of the numeric values of a field.',
      '* | stats avg(duration_ms) as mean by service',
    ),
    sql: numeric('avg'),
  },
  min: {
    doc: doc(
      'min(field)',
      'The smallest value: numeric, or text for text core fields and times.',
      '* | stats min(_time) by host',
    ),
    sql: extreme('min'),
  },
  max: {
    doc: doc(
      'max(field)',
      'The largest value: numeric, or text for text core fields and times.',
      '* | stats max(bytes) by host',
    ),
    sql: extreme('max'),
  },
  dc: {
    doc: doc('dc(field)', 'Counts the distinct values of a field.', '* | stats dc(user) by host'),
    sql: (col, over) => ({ sql: `count(DISTINCT ${col.sql})${over}`, type: 'num' }),
  },
  values: {
    doc: doc(
      'values(field)',
      'The distinct values of a field, sorted, at most 100.',
      '* | stats values(status) by host',
    ),
    // Splunk's values(): distinct values, sorted, capped
    sql: (col, over) => ({ sql: `list_slice(list_sort(list(DISTINCT ${toStr(col)})${over}), 1, 100)`, type: 'list' }),
  },
  median: {
    doc: doc(
      'median(field)',
      'The middle value of a numeric field (the 50th percentile, interpolated).',
      '* | stats median(duration_ms) by service',
    ),
    sql: (col, over) => quantile(col, 0.5, over),
  },
};

const PERCENTILE = /^p([1-9][0-9]?)$/;
const PERCENTILE_DOC = doc(
  'p<1-99>(field)',
  'The Nth percentile of a numeric field (p50, p95, p99, any N from 1 to 99), interpolated between values.',
  '* | stats p95(duration_ms) by service',
);

export function isAggName(name: string): boolean {
  return Object.hasOwn(AGGS, name) || PERCENTILE.test(name);
}

/** The reference entries of every aggregation; the percentiles share one, named `p95`. */
export function aggregationDocs(): ({ name: string } & ConstructDoc)[] {
  return [...Object.entries(AGGS).map(([name, d]) => ({ name, ...d.doc })), { name: 'p95', ...PERCENTILE_DOC }];
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
  if (t.kind !== 'ident' || !isAggName(fn))
    throw p.fail(
      `unexpected ${describe(t)}: missing an aggregation (count, sum, avg, min, max, dc, values, p50, p95, p99)`,
      t,
    );
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

/** Aggregations separated by commas or spaces, up to `by` (or another of `stop`), `|` or the end. */
export function parseAggs(p: Parser, stop: readonly string[] = []): Agg[] {
  const aggs: Agg[] = [];
  for (;;) {
    const t = p.peek('expr');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|')) break;
    if (t.kind === 'ident' && (t.raw.toLowerCase() === 'by' || stop.includes(t.raw.toLowerCase()))) break;
    if (aggs.length > 0 && p.acceptOp(',', 'expr')) continue;
    aggs.push(parseAgg(p, p.next('expr')));
  }
  if (aggs.length === 0) throw p.fail(`unexpected ${describe(p.peek('expr'))}: missing an aggregation`, p.peek('expr'));
  return aggs;
}

/** SQL of one aggregation over the current stage, with its result type; `over` makes it a window function. */
export function aggSql(a: Agg, b: StageBuilder, over = ''): AggSql {
  const col: ColRef = a.field === undefined ? { sql: '*', type: 'any' } : b.col(a.field);
  const pm = PERCENTILE.exec(a.fn);
  if (pm) return quantile(col, Number(pm[1]) / 100, over);
  if (!Object.hasOwn(AGGS, a.fn)) throw new Error(`BUG: unknown aggregation ${a.fn}`);
  return AGGS[a.fn].sql(col, over);
}
