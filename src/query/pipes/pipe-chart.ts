import { doc } from '../doc.js';
import { toStr } from '../expr/coerce.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { ColRef, Schema } from '../schema.js';
import { ident } from '../sql.js';
import { ascending, checkDistinct, type StageBuilder } from '../stages.js';
import {
  aggName,
  groupByEachValue,
  aggReads,
  aggSql,
  needsTime,
  parseAggs,
  prepareAggs,
  printAgg,
  type Agg,
  type AggStageEnv,
} from './aggregations.js';
import { compileExpr, printExpr } from '../expr/expr.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { PipeOptions } from './pipe-options.js';

/**
 * `chart [limit=N] [usenull=false] [useother=false] <aggs> over x [by y]` (or `by x[, y]`): one row
 * per value of x, sorted by it. With `by`, the rows are (x, y, aggregations); as the last pipe the
 * service pivots them into one column per value of y (results-chart.ts). The `limit` values of y
 * with the largest total of the first aggregation (events when it is not numeric) keep their
 * name, the rest count as `OTHER` (dropped with useother=false); an event lacking y counts as
 * `NULL` (dropped with usenull=false). Events lacking x are left out.
 */
export interface ChartPipe {
  kind: 'chart';
  /** 0: every value of y its own column. */
  limit: number;
  usenull: boolean;
  useother: boolean;
  aggs: Agg[];
  over: string;
  by?: string;
}

const OPTIONS = ['limit', 'usenull', 'useother'] as const;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

function parseChart(p: Parser): ChartPipe {
  const n: ChartPipe = { kind: 'chart', limit: DEFAULT_LIMIT, usenull: true, useother: true, aggs: [], over: '' };
  const opts = new PipeOptions(p, OPTIONS);
  // options before the aggregations or at the end (where Splunk users often put limit=)
  const readOptions = () => {
    for (let name = opts.next(); name !== undefined; name = opts.next()) {
      if (name === 'limit') n.limit = opts.count(name, MAX_LIMIT);
      else if (name === 'usenull') n.usenull = opts.bool(name);
      else n.useother = opts.bool(name);
    }
  };
  readOptions();
  n.aggs = parseAggs(p, ['over', ...OPTIONS]);
  if (p.acceptKeyword('over')) {
    n.over = fields(p, 'over', 1)[0];
    if (p.acceptKeyword('by')) n.by = fields(p, 'by', 1)[0];
  } else if (p.acceptKeyword('by')) {
    [n.over, n.by] = fields(p, 'by', 2);
  } else {
    const t = p.peek('expr');
    throw p.fail(`unexpected ${describe(t)}: missing "over" or "by" and the field to chart over`, t);
  }
  readOptions();
  return n;
}

/** The field(s) after `over` or `by`: one, or for Splunk's `chart count by x, y` two. */
function fields(p: Parser, after: string, max: number): string[] {
  const first = p.peek('search');
  const names = p.fieldList(`a field after "${after}"`, { stop: ['by', ...OPTIONS] });
  if (names.length > max)
    throw p.fail(
      `chart takes ${max === 1 ? 'one field' : 'at most two fields'} after "${after}", not ${names.length}`,
      first,
    );
  return names;
}

function printChart(n: ChartPipe): string {
  const opts = [
    n.limit === DEFAULT_LIMIT ? '' : `limit=${n.limit}`,
    n.usenull ? '' : 'usenull=false',
    n.useother ? '' : 'useother=false',
  ].filter(Boolean);
  const split = `over ${printListName(n.over)}${n.by === undefined ? '' : ` by ${printListName(n.by)}`}`;
  return ['chart', ...opts, n.aggs.map(printAgg).join(', '), split].join(' ');
}

/** The aggregations as SELECT items over the current stage, their types into `schema`. */
function aggItems(n: ChartPipe, b: StageBuilder, schema: Schema, env: AggStageEnv): string[] {
  return n.aggs.map((a) => {
    const s = aggSql(a, b, env);
    schema.set(aggName(a), s.type);
    return `${s.sql} AS ${ident(aggName(a))}`;
  });
}

/**
 * The values the aggregations read (fields, eval expressions) as columns `__f0`…, and the
 * aggregations rewritten to read them.
 */
function chartInputs(n: ChartPipe, b: StageBuilder): { inputs: ColRef[]; aggs: Agg[] } {
  const keys: string[] = [];
  const inputs: ColRef[] = [];
  const inputOf = (key: string, col: () => ColRef) => {
    let i = keys.indexOf(key);
    if (i < 0) {
      i = keys.push(key) - 1;
      inputs.push(col());
    }
    return `__f${i}`;
  };
  const aggs = n.aggs.map((a): Agg => {
    if (a.expr) {
      const e = a.expr;
      return { fn: a.fn, field: inputOf(`eval ${printExpr(e)}`, () => compileExpr(e, b)), alias: a.alias };
    }
    return a.field === undefined ? a : { ...a, field: inputOf(a.field, () => b.col(a.field!)) };
  });
  return { inputs, aggs };
}

/**
 * The rows (x, y, aggregations). y is text (it names columns). With a limit, y values are ranked
 * by the total over x of the first aggregation, then events are grouped again under their rank's
 * name, so that OTHER's cells are the aggregation over its events (an average of averages would
 * be wrong). The first stage keeps only x, y and the values the aggregations read, under names of
 * its own (`__f0`…), so that the helper columns cannot meet a user field called `__x`; and the row
 * number and `_time` when an aggregation needs them (first, latest…).
 */
export function compileBy(n: ChartPipe & { by: string }, b: StageBuilder, x: ColRef, env: AggStageEnv): void {
  const y = b.col(n.by);
  const { inputs, aggs } = chartInputs(n, b);
  const carry = [...(env.seq === 'NULL' ? [] : [env.seq]), ...(needsTime(n.aggs) ? [env.time.sql] : [])];
  const where = [`${x.sql} IS NOT NULL`, ...(n.usenull ? [] : [`${y.sql} IS NOT NULL`])];
  const yText = n.usenull ? `coalesce(${toStr(y)}, 'NULL')` : toStr(y);
  const select = [`${x.sql} AS __x`, `${yText} AS __y`, ...inputs.map((c, i) => `${c.sql} AS __f${i}`), ...carry];
  b.push(
    `SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where.join(' AND ')}`,
    new Map(inputs.map((c, i) => [`__f${i}`, c.type])),
  );
  const events = b.cur;
  let from = events;
  let yOut = '__y';
  let keep = '';
  if (n.limit > 0) {
    const first = aggSql(aggs[0], b, env);
    const weight = first.type === 'num' ? first.sql : 'count(*)';
    const cells = `SELECT __y, ${weight} AS __w FROM ${events} GROUP BY __x, __y`;
    b.push(
      `SELECT __y, row_number() OVER (ORDER BY sum(__w) DESC NULLS LAST, __y) AS __rank FROM (${cells}) GROUP BY __y`,
    );
    from = `${events} JOIN ${b.cur} USING (__y)`;
    yOut = `CASE WHEN __rank <= ${n.limit} THEN __y ELSE 'OTHER' END`;
    if (!n.useother) keep = ` WHERE __rank <= ${n.limit}`;
  }
  const schema: Schema = new Map([
    [n.over, x.type],
    [n.by, 'str'],
  ]);
  const items = [`__x AS ${ident(n.over)}`, `${yOut} AS ${ident(n.by)}`];
  aggs.forEach((a, i) => {
    const s = aggSql(a, b, env);
    items.push(`${s.sql} AS ${ident(aggName(n.aggs[i]))}`);
    schema.set(aggName(n.aggs[i]), s.type);
  });
  b.push(`SELECT ${items.join(', ')} FROM ${from}${keep} GROUP BY 1, 2`, schema);
}

export const chartPipe: PipeDef<ChartPipe> = {
  name: 'chart',
  doc: doc(
    'chart [limit=<N>] [usenull=false] [useother=false] <agg>[, <agg>…] over <field> [by <field>]',
    'Aggregates into one row per value of the over field and, as the last pipe, one column per value of the by field (the N largest, default 10, the rest as OTHER).',
    'status>=400 | chart count over host by status',
  ),
  parse: parseChart,
  print: printChart,
  reads: (n) => [n.over, ...(n.by === undefined ? [] : [n.by]), ...n.aggs.flatMap(aggReads)],
  writes: () => 'all',
  compile(n, b) {
    b.markMatched();
    checkDistinct(
      'chart',
      [n.over, ...(n.by === undefined ? [] : [n.by]), ...n.aggs.map(aggName)],
      'name an aggregation with "as"',
    );
    groupByEachValue(b, [n.over, ...(n.by === undefined ? [] : [n.by])]);
    const env = prepareAggs('chart', n.aggs, b);
    const x = b.col(n.over);
    if (n.by === undefined) {
      const schema: Schema = new Map([[n.over, x.type]]);
      const select = [`${x.sql} AS ${ident(n.over)}`, ...aggItems(n, b, schema, env)];
      b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${x.sql} IS NOT NULL GROUP BY 1`, schema);
    } else {
      compileBy({ ...n, by: n.by }, b, x, env);
      b.timechart = {
        spanSecs: 0,
        over: n.over,
        by: n.by,
        aggs: n.aggs.map((a) => ({ name: aggName(a), zero: a.fn === 'count' || a.fn === 'dc' })),
      };
    }
    b.order = ascending([n.over, ...(n.by === undefined ? [] : [n.by])]);
    b.mode = 'table';
  },
};
