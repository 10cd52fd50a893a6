import { doc } from '../doc.js';
import { printListName } from './field-names.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { Schema } from '../schema.js';
import { ident } from '../sql.js';
import { checkDistinct, pipeError, type StageBuilder } from '../stages.js';
import { autoSpanSecs, parseSpan } from '../time-range.js';
import {
  aggName,
  groupByEachValue,
  aggReads,
  aggSql,
  parseAggs,
  prepareAggs,
  printAgg,
  type Agg,
  type AggStageEnv,
} from './aggregations.js';
import { compileBy } from './pipe-chart.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';

/**
 * `timechart [span=1m] <aggs> [by f]`: one row per time bucket (column `_time`, the bucket start).
 * As the last pipe, empty buckets are filled and `by f` pivots into one column per value of f.
 * Without span, about 100 buckets over the query's time range.
 */
export interface TimechartPipe {
  kind: 'timechart';
  span?: string;
  /** Splunk's minspan: the smallest width an automatic span may take (no effect with span). */
  minspan?: string;
  aggs: Agg[];
  by?: string;
  /**
   * Splunk's series options, kept as given: with any of them, the `limit` (default 10, 0: all)
   * series with the largest total of the first aggregation keep their name and the rest count as
   * OTHER (dropped with useother=false); events lacking the by field count as NULL (dropped with
   * usenull=false). Without them every series is its own column and events lacking the field are
   * left out (svc's behaviour before these options existed).
   */
  limit?: number;
  useother?: boolean;
  usenull?: boolean;
}

const OPTIONS = ['span', 'minspan', 'limit', 'useother', 'usenull'] as const;
const SERIES_LIMIT = 10;
const MAX_LIMIT = 1000;

function parseTimechart(p: Parser): TimechartPipe {
  const n: TimechartPipe = { kind: 'timechart', aggs: [] };
  const opts = new PipeOptions(p, OPTIONS);
  // options before the aggregations (Splunk's order), after them or at the end
  const readOptions = () => {
    for (let name = opts.next(); name !== undefined; name = opts.next()) {
      if (name === 'span') n.span = spanValue(p);
      else if (name === 'minspan') n.minspan = spanValue(p);
      else if (name === 'limit') n.limit = opts.count(name, MAX_LIMIT);
      else if (name === 'useother') n.useother = opts.bool(name);
      else n.usenull = opts.bool(name);
    }
  };
  readOptions();
  n.aggs = parseAggs(p, OPTIONS, { timechart: true });
  readOptions();
  if (p.acceptKeyword('by')) n.by = byField(p);
  readOptions();
  return n;
}

function spanValue(p: Parser): string {
  const t = p.next('search');
  if (t.kind !== 'word' || parseSpan(t.text) === undefined)
    throw p.fail(`unexpected ${describe(t)}: missing a span such as 30s, 1m, 1h or 1d`, t);
  return t.text;
}

function printTimechart(n: TimechartPipe): string {
  const opts = [
    n.span ? `span=${n.span}` : '',
    n.minspan ? `minspan=${n.minspan}` : '',
    n.limit !== undefined ? `limit=${n.limit}` : '',
    n.useother !== undefined ? `useother=${n.useother}` : '',
    n.usenull !== undefined ? `usenull=${n.usenull}` : '',
  ].filter(Boolean);
  return ['timechart', ...opts, n.aggs.map(printAgg).join(', ')].join(' ') + (n.by ? ` by ${printListName(n.by)}` : '');
}

/**
 * With series options: chart's grouping (pipe-chart.ts compileBy) over the bucket number, which
 * ranks the series and names the rest OTHER, then the bucket as a time.
 */
function compileSeries(n: TimechartPipe & { by: string }, b: StageBuilder, spanUs: number, env: AggStageEnv): void {
  const bucket = '__bucket';
  const x = { sql: `epoch_us(_time) // ${spanUs}`, type: 'num' as const };
  const chart = {
    kind: 'chart' as const,
    limit: n.limit ?? SERIES_LIMIT,
    usenull: n.usenull ?? true,
    useother: n.useother ?? true,
    aggs: n.aggs,
    over: bucket,
    by: n.by,
  };
  compileBy(chart, b, x, env);
  const schema: Schema = new Map([['_time', 'time']]);
  const outer = [`make_timestamp(${ident(bucket)} * ${spanUs}) AS _time`];
  for (const [name, type] of b.schema) {
    if (name === bucket) continue;
    schema.set(name, type);
    outer.push(ident(name));
  }
  b.push(`SELECT ${outer.join(', ')} FROM ${b.cur}`, schema);
}

const DEFAULT_BUCKETS = 100;

/** The bucket width: `span`, else about 100 buckets over the range, but no less than `minspan`. */
export function spanOf(span: string | undefined, range: StageBuilder['range'], minspan?: string): number {
  if (span) return parseSpan(span)!;
  const auto = range ? autoSpanSecs(range.fromMs, range.toMs, DEFAULT_BUCKETS) : 3600;
  return minspan ? Math.max(auto, parseSpan(minspan)!) : auto;
}

export const timechartPipe: PipeDef<TimechartPipe> = {
  name: 'timechart',
  doc: doc(
    'timechart [span=<span>|minspan=<span>] [limit=<N>] [useother=false] [usenull=false] <agg>[, <agg>…] [by <field>]',
    'Aggregates per time bucket (_time is the bucket start); as the last pipe, empty buckets are filled and by makes one column per value (with limit=N, the N largest and OTHER).',
    'status>=500 | timechart span=5m count by host',
  ),
  parse: parseTimechart,
  print: printTimechart,
  reads: (n) => ['_time', ...(n.by ? [n.by] : []), ...n.aggs.flatMap(aggReads)],
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
    groupByEachValue(b, n.by ? [n.by] : []);
    const spanUs = spanOf(n.span, b.range, n.minspan) * 1_000_000;
    const env = prepareAggs('timechart', n.aggs, b, spanUs / 1_000_000);
    const series = n.limit !== undefined || n.useother !== undefined || n.usenull !== undefined;
    if (n.by !== undefined && series) compileSeries({ ...n, by: n.by }, b, spanUs, env);
    else compileBuckets(n, b, spanUs, env);
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

/** Without series options: one row per bucket and value of the by field (events lacking it left out). */
function compileBuckets(n: TimechartPipe, b: StageBuilder, spanUs: number, env: AggStageEnv): void {
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
    const s = aggSql(a, b, env);
    select.push(`${s.sql} AS ${ident(aggName(a))}`);
    outer.push(ident(aggName(a)));
    schema.set(aggName(a), s.type);
  }
  b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where.join(' AND ')} GROUP BY ${n.by ? '1, 2' : '1'}`);
  b.push(`SELECT ${outer.join(', ')} FROM ${b.cur}`, schema);
}

/** The one field after `by`: bare, 'single-quoted' (the expression spelling) or "double-quoted" like every other pipe list. */
function byField(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind !== 'string') return p.fieldName('a field after "by"');
  p.next('expr');
  if (t.text === '') throw p.fail('missing text inside the field name ""', t);
  return t.text;
}
