import { doc, type ConstructDoc } from '../doc.js';
import { describe, printIdent, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { compileExpr, exprFields, parseExpr, printExpr, type Expr } from '../expr/expr.js';
import { wildcardRegex, type ColRef } from '../schema.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { AGGS, quantile, type AggEnv, type AggSql } from './agg-functions.js';
import { ident } from '../sql.js';

/**
 * One aggregation of `stats` / `timechart`: `count`, `avg(bytes)`, `p95(ms) as slow`,
 * `count(eval(status=404)) as "Not found"`, `values(*) as *`.
 */
export interface Agg {
  fn: string;
  /** The field aggregated; `*` for every field (stats and eventstats, expanded when compiled). */
  field?: string;
  /** `fn(eval(<expr>))`: the expression aggregated instead of a field. */
  expr?: Expr;
  alias?: string;
}

/** p95 and Splunk's perc95: the same interpolated percentile. */
const PERCENTILE = /^(?:p|perc)([1-9][0-9]?)$/;
const PERCENTILE_DOC = doc(
  'p<1-99>(field) | perc<1-99>(field)',
  'The Nth percentile of a numeric field (p50, p95, p99, any N from 1 to 99; perc95 is p95), interpolated between values.',
  '* | stats p95(duration_ms) by service',
);

export function isAggName(name: string): boolean {
  return Object.hasOwn(AGGS, name) || PERCENTILE.test(name);
}

/** The reference entries of every aggregation; the percentiles share one, named `p95`. */
export function aggregationDocs(): ({ name: string } & ConstructDoc)[] {
  return [...Object.entries(AGGS).map(([name, d]) => ({ name, ...d.doc })), { name: 'p95', ...PERCENTILE_DOC }];
}

function argText(a: Agg): string | undefined {
  if (a.expr) return `eval(${printExpr(a.expr)})`;
  return a.field;
}

/** The output column of an aggregation: its alias, else `fn(field)`, `fn(eval(expr))` or `count`. */
export function aggName(a: Agg): string {
  const arg = argText(a);
  return a.alias ?? (arg === undefined ? a.fn : `${a.fn}(${arg})`);
}

/** Fields an aggregation reads (`*`: every field). */
export function aggReads(a: Agg): string[] {
  if (a.expr) return exprFields(a.expr);
  return a.field === undefined ? [] : [a.field];
}

/** An alias: bare when it lexes as one identifier, else double-quoted as Splunk users write it. */
function printAlias(name: string): string {
  return /^[A-Za-z_@*][A-Za-z0-9_.@*]*$/.test(name) ? name : quoteString(name);
}

export function printAgg(a: Agg): string {
  const arg = a.expr ? `eval(${printExpr(a.expr)})` : a.field === undefined ? undefined : printArg(a.field);
  const base = arg === undefined ? a.fn : `${a.fn}(${arg})`;
  return a.alias === undefined ? base : `${base} as ${printAlias(a.alias)}`;
}

/** A field argument: bare, a pattern with `*` as written, else quoted. */
const printArg = (field: string) =>
  /^[A-Za-z_@*][A-Za-z0-9_.@*]*$/.test(field) && field.includes('*') ? field : printIdent(field);

export interface AggParseOptions {
  /** timechart: per_second… are allowed. */
  timechart?: boolean;
  /** stats, eventstats: `fn(*) as *` is allowed. */
  wildcard?: boolean;
}

function parseAggArg(p: Parser, agg: Agg, opts: AggParseOptions): void {
  const t = p.peek('expr');
  if (t.kind === 'op' && t.text === '*') {
    if (!opts.wildcard) throw p.fail(`cannot aggregate every field ("*") here: only stats and eventstats can`, t);
    p.next('expr');
    agg.field = gluedStars(p, '*', t);
    return;
  }
  if (t.kind === 'ident' && t.raw.toLowerCase() === 'eval') {
    p.next('expr');
    const open = p.peek('expr');
    if (open.kind !== 'op' || open.text !== '(' || open.pos !== t.pos + t.raw.length)
      throw p.fail(`unexpected ${describe(open)}: missing "(" right after "eval"`, open);
    p.next('expr');
    agg.expr = p.nest(t, () => parseExpr(p));
    p.expectOp(')', 'expr');
    return;
  }
  if (t.kind === 'string') {
    // `sum("Duplicate Messages")`: Splunk reads a double-quoted argument as the field's name
    p.next('expr');
    if (t.text === '') throw p.fail('missing text inside the field name ""', t);
    agg.field = t.text;
    return;
  }
  agg.field = gluedStars(p, p.fieldName(`a field for "${agg.fn}"`), t);
  if (agg.field.includes('*') && !opts.wildcard)
    throw p.fail(`cannot aggregate fields by a pattern ("${agg.field}") here: only stats and eventstats can`, t);
}

/** `as name`, `as 'name'` or `as "Total Events"`. */
function parseAlias(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind === 'string') {
    p.next('expr');
    if (t.text === '') throw p.fail('missing text inside the name ""', t);
    return t.text;
  }
  if (!(t.kind === 'op' && t.text === '*')) return gluedStars(p, p.fieldName(`a name after "as"`), t);
  p.next('expr');
  return gluedStars(p, '*', t);
}

/** A pattern alias such as `*`, `values_*` or `*_max`: name pieces and `*` written without spaces. */
function gluedStars(p: Parser, name: string, first: Token): string {
  let end = first.pos + name.length;
  for (;;) {
    const t = p.peek('expr');
    if (t.pos !== end || !((t.kind === 'op' && t.text === '*') || (t.kind === 'ident' && !t.raw.startsWith("'"))))
      return name;
    p.next('expr');
    name += t.text;
    end = t.pos + t.raw.length;
  }
}

function parseAgg(p: Parser, t: Token, opts: AggParseOptions): Agg {
  const fn = t.text.toLowerCase();
  if (t.kind !== 'ident' || !isAggName(fn))
    throw p.fail(
      `unexpected ${describe(t)}: missing an aggregation (count, sum, avg, min, max, dc, values, latest, p95, …)`,
      t,
    );
  if (AGGS[fn]?.timechart && !opts.timechart) throw p.fail(`${describe(t)} is only valid in timechart`, t);
  const agg: Agg = { fn };
  const open = p.peek('expr');
  if (open.kind === 'op' && open.text === '(') {
    p.next('expr');
    parseAggArg(p, agg, opts);
    p.expectOp(')', 'expr');
  } else if (fn !== 'count') {
    throw p.fail(`unexpected ${describe(open)}: missing "(field)" after "${fn}"`, open);
  }
  if (p.acceptKeyword('as')) agg.alias = parseAlias(p);
  const pattern = agg.field?.includes('*') ?? false;
  if (pattern && agg.alias !== undefined && !agg.alias.includes('*'))
    throw p.fail(`"${fn}(${agg.field})" makes one column per field: name them with a "*" in the alias ("as *")`, t);
  if (!pattern && agg.alias?.includes('*'))
    throw p.fail(`"*" in the alias "${agg.alias}" stands for a field's name: use it with "${fn}(*)"`, t);
  return agg;
}

/** Aggregations separated by commas or spaces, up to `by` (or another of `stop`), `|` or the end. */
export function parseAggs(p: Parser, stop: readonly string[] = [], opts: AggParseOptions = {}): Agg[] {
  const aggs: Agg[] = [];
  for (;;) {
    const t = p.peek('expr');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|')) break;
    if (t.kind === 'ident' && (t.raw.toLowerCase() === 'by' || stop.includes(t.raw.toLowerCase()))) break;
    if (aggs.length > 0 && p.acceptOp(',', 'expr')) continue;
    aggs.push(parseAgg(p, p.next('expr'), opts));
  }
  if (aggs.length === 0) throw p.fail(`unexpected ${describe(p.peek('expr'))}: missing an aggregation`, p.peek('expr'));
  return aggs;
}

/**
 * `fn(*) [as *]`, `fn(new_*) as *`: one aggregation per field of the current stage matching the
 * pattern that is not a `by` field, an internal one (`_time`, `__…`) or `message` (Splunk's `_raw`,
 * which `*` leaves out as well). A `*` in the alias stands for what the field's first `*` matched
 * (`values(new_*) as *` names `new_user` as `user`), as in Splunk.
 */
export function expandWildcards(aggs: Agg[], b: StageBuilder, by: string[]): Agg[] {
  return aggs.flatMap((a) => {
    if (a.field === undefined || !a.field.includes('*')) return [a];
    const re = wildcardRegex(a.field, true);
    const out: Agg[] = [];
    for (const f of b.schema.keys()) {
      const m = re.exec(f);
      if (!m || by.includes(f) || f.startsWith('_') || f === 'message') continue;
      if (b.schema.get(f) === 'list' && !LIST_AGGS.has(a.fn)) continue;
      out.push({ fn: a.fn, field: f, alias: a.alias?.replaceAll('*', m[1]) });
    }
    return out;
  });
}

/** What aggregations' SQL may use beside `over` (agg-functions.ts). */
export type AggStageEnv = Omit<AggEnv, 'over'>;

/** True when one of the aggregations reads `_time` (latest, earliest and their _time forms). */
export function needsTime(aggs: Agg[]): boolean {
  return aggs.some((a) => AGGS[a.fn]?.needs === 'time');
}

/**
 * Prepares the stage for the aggregations: when one needs the row order (first, last, list), a
 * stage numbering the rows in the current order; returns what their SQL may use (AggEnv without
 * `over`). `spanSecs`: timechart's bucket width.
 */
export function prepareAggs(pipe: string, aggs: Agg[], b: StageBuilder, spanSecs = 0, seq?: string): AggStageEnv {
  const needs = new Set(aggs.map((a) => AGGS[a.fn]?.needs));
  if (needsTime(aggs) && b.schema.get('_time') !== 'time')
    throw pipeError(
      pipe,
      'latest, earliest and their _time forms need the event time _time, which an earlier pipe removed',
    );
  if (needs.has('order') && seq === undefined) {
    seq = `__aggseq${b.ctes.length}`;
    b.push(`SELECT *, row_number() OVER (${b.orderBy()}) AS ${seq} FROM ${b.cur}`);
  }
  return { seq: seq ?? 'NULL', time: b.col('_time'), spanSecs };
}

/** The aggregations that take a multivalue (list) field: the rest would read it as one text. */
const LIST_AGGS: ReadonlySet<string> = new Set([
  'count',
  'values',
  'list',
  'first',
  'last',
  'latest',
  'earliest',
  'latest_time',
  'earliest_time',
]);

/**
 * Throws when a `by` field is a multivalue, for a pipe that keeps one row per event
 * (streamstats, eventstats): Splunk's one group per value would need the event in several.
 */
export function checkGroupable(pipe: string, b: StageBuilder, by: string[]): void {
  const mv = by.find((f) => b.schema.get(f) === 'list');
  if (mv !== undefined)
    throw pipeError(pipe, `cannot group by the multivalue field "${mv}" (one group per value is not supported)`);
}

/**
 * A multivalue `by` field of an aggregating pipe (stats, chart, timechart) groups by each of its
 * values, as in Splunk (`stats count by user.groups{}`): the rows are repeated once per distinct
 * value before grouping, so an event counts once in each of its groups.
 */
export function groupByEachValue(b: StageBuilder, by: string[]): void {
  const mv = [...new Set(by)].filter((f) => b.schema.get(f) === 'list');
  if (mv.length === 0) return;
  // one at a time: unnest in one SELECT would pair the lists' values instead of crossing them
  for (const f of mv) b.setColumns([{ name: f, sql: `unnest(list_distinct(${ident(f)}))`, type: 'any' }]);
}

/** SQL of one aggregation over the current stage, with its result type; `over` makes it a window function. */
export function aggSql(a: Agg, b: StageBuilder, env: AggStageEnv, over = ''): AggSql {
  let col: ColRef = { sql: '*', type: 'any' };
  if (a.expr) col = compileExpr(a.expr, b);
  else if (a.field !== undefined) col = b.col(a.field);
  // a condition only counts: sum(eval(x>1)) has no meaning in Splunk either
  if (col.type === 'bool' && a.fn !== 'count')
    throw pipeError(a.fn, `cannot aggregate a condition (true/false): count(eval(…)) counts where it is true`);
  if (col.type === 'list' && !LIST_AGGS.has(a.fn))
    throw pipeError(
      a.fn,
      `cannot aggregate the multivalue field "${a.field ?? ''}": ${[...LIST_AGGS].join(', ')} take one`,
    );
  const pm = PERCENTILE.exec(a.fn);
  if (pm) return quantile(col, Number(pm[1]) / 100, over);
  if (!Object.hasOwn(AGGS, a.fn)) throw new Error(`BUG: unknown aggregation ${a.fn}`);
  return AGGS[a.fn].sql(col, { ...env, over });
}
