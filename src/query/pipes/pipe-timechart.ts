import { doc } from '../doc.js';
import { printListName } from './field-names.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { Schema } from '../schema.js';
import { ident } from '../sql.js';
import { checkDistinct, pipeError, type StageBuilder } from '../stages.js';
import { autoSpanSecs, parseSpan } from '../time-range.js';
import { aggName, aggSql, parseAggs, printAgg, type Agg } from './aggregations.js';
import type { PipeDef } from './pipe.js';

/**
 * `timechart [span=1m] <aggs> [by f]`: one row per time bucket (column `_time`, the bucket start).
 * As the last pipe, empty buckets are filled and `by f` pivots into one column per value of f.
 * Without span, about 100 buckets over the query's time range.
 */
export interface TimechartPipe {
  kind: 'timechart';
  span?: string;
  aggs: Agg[];
  by?: string;
}

const DEFAULT_BUCKETS = 100;

export function spanOf(span: string | undefined, range: StageBuilder['range']): number {
  if (span) return parseSpan(span)!;
  return range ? autoSpanSecs(range.fromMs, range.toMs, DEFAULT_BUCKETS) : 3600;
}

export const timechartPipe: PipeDef<TimechartPipe> = {
  name: 'timechart',
  doc: doc(
    'timechart [span=<span>] <agg>[, <agg>…] [by <field>]',
    'Aggregates per time bucket (_time is the bucket start); as the last pipe, empty buckets are filled and by makes one column per value.',
    'status>=500 | timechart span=5m count by host',
  ),
  parse(p: Parser): TimechartPipe {
    let span: string | undefined;
    if (p.acceptKeyword('span')) {
      p.expectOp('=', 'expr');
      const t = p.next('search');
      if (t.kind !== 'word' || parseSpan(t.text) === undefined)
        throw p.fail(`unexpected ${describe(t)}: missing a span such as 30s, 1m, 1h or 1d`, t);
      span = t.text;
    }
    const aggs = parseAggs(p);
    let by: string | undefined;
    if (p.acceptKeyword('by')) by = byField(p);
    return { kind: 'timechart', span, aggs, by };
  },
  print: (n) =>
    `timechart ${n.span ? `span=${n.span} ` : ''}${n.aggs.map(printAgg).join(', ')}${n.by ? ` by ${printListName(n.by)}` : ''}`,
  reads: (n) => ['_time', ...(n.by ? [n.by] : []), ...n.aggs.flatMap((a) => (a.field ? [a.field] : []))],
  writes: () => 'all',
  compile(n, b) {
    b.markMatched();
    if (b.schema.get('_time') !== 'time')
      throw pipeError(
        'timechart',
        'needs the event time _time, which an earlier pipe removed or made something else than a time',
      );
    checkDistinct(
      'timechart',
      ['_time', ...(n.by ? [n.by] : []), ...n.aggs.map(aggName)],
      'name an aggregation with "as"',
    );
    const spanUs = spanOf(n.span, b.range) * 1_000_000;
    // fast path: group on the integer bucket number (cheaper than a TIMESTAMP key) and turn it
    // into a time only for the few result rows
    const select = [`epoch_us(_time) // ${spanUs} AS __bucket`];
    const outer = [`make_timestamp(__bucket * ${spanUs}) AS _time`];
    const schema: Schema = new Map([['_time', 'time']]);
    // rows without a time have no bucket. Filtered on `_time` before grouping: a filter on
    // `__bucket` after it is pushed below the grouping by DuckDB and computes epoch_us twice per
    // row (measured: ~20 % of `* | timechart count`), while `_time IS NOT NULL` is free on blocks
    const where = ['_time IS NOT NULL'];
    if (n.by) {
      const c = b.col(n.by);
      select.push(`${c.sql} AS ${ident(n.by)}`);
      outer.push(ident(n.by));
      schema.set(n.by, c.type);
      where.push(`${c.sql} IS NOT NULL`);
    }
    for (const a of n.aggs) {
      const s = aggSql(a, b);
      select.push(`${s.sql} AS ${ident(aggName(a))}`);
      outer.push(ident(aggName(a)));
      schema.set(aggName(a), s.type);
    }
    b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where.join(' AND ')} GROUP BY ${n.by ? '1, 2' : '1'}`);
    b.push(`SELECT ${outer.join(', ')} FROM ${b.cur}`, schema);
    b.order = [
      { sql: '_time', desc: false, cols: ['_time'] },
      ...(n.by ? [{ sql: ident(n.by), desc: false, cols: [n.by] }] : []),
    ];
    b.mode = 'table';
    b.timechart = {
      spanSecs: spanUs / 1_000_000,
      by: n.by,
      aggs: n.aggs.map((a) => ({ name: aggName(a), zero: a.fn === 'count' || a.fn === 'dc' })),
    };
  },
};

/** The one field after `by`: bare, 'single-quoted' (the expression spelling) or "double-quoted" like every other pipe list. */
function byField(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind !== 'string') return p.fieldName('a field after "by"');
  p.next('expr');
  if (t.text === '') throw p.fail('missing text inside the field name ""', t);
  return t.text;
}
