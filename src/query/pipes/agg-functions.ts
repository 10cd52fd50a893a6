import { doc, type ConstructDoc } from '../doc.js';
import { toBool, toNum, toStr } from '../expr/coerce.js';
import type { ColRef, ColType } from '../schema.js';

export type AggSql = { sql: string; type: ColType };

/**
 * What an aggregation's SQL may use beside its column: `over` follows the aggregate call
 * (`count(x) OVER (…)`, eventstats and streamstats run it as a window function; stats gives '');
 * `seq` numbers the rows in the order the pipe sees them (first, last, list); `time` is `_time`
 * (latest, earliest); `spanSecs` is timechart's bucket width (per_second…).
 */
export interface AggEnv {
  over: string;
  seq: string;
  time: ColRef;
  spanSecs: number;
}

/**
 * One aggregation: its reference entry and its SQL over the stage's column (`*` for bare count).
 * `needs`: the row order (`seq`) or the event time; `timechart`: only timechart gives it meaning.
 */
export interface AggDef {
  doc: ConstructDoc;
  needs?: 'order' | 'time';
  timechart?: boolean;
  sql(col: ColRef, env: AggEnv): AggSql;
}

/** Only the rows where the value is not null (Splunk: an event lacking the field is not seen). */
const present = (col: ColRef) => (col.sql === '*' ? '' : ` FILTER (WHERE ${col.sql} IS NOT NULL)`);

export const quantile = (col: ColRef, q: number, over: string): AggSql => ({
  sql: `quantile_cont(${toNum(col)}, ${q})${over}`,
  type: 'num',
});
const numeric =
  (fn: string) =>
  (col: ColRef, env: AggEnv): AggSql => ({ sql: `${fn}(${toNum(col)})${env.over}`, type: 'num' });
/** min/max keep text and times as they are (text core fields, _time), else compare numbers. */
const extreme =
  (fn: string) =>
  (col: ColRef, env: AggEnv): AggSql =>
    col.type === 'time' || col.type === 'str'
      ? { sql: `${fn}(${col.sql})${env.over}`, type: col.type }
      : numeric(fn)(col, env);
/** The value of the row where `key` is smallest (arg_min) or largest (arg_max); null values are skipped. */
const valueAt =
  (fn: 'arg_min' | 'arg_max', key: 'seq' | 'time') =>
  (col: ColRef, env: AggEnv): AggSql => ({
    sql: `${fn}(${col.sql}, ${key === 'seq' ? env.seq : env.time.sql})${present(col)}${env.over}`,
    type: col.type,
  });
const timeOf =
  (fn: 'min' | 'max') =>
  (col: ColRef, env: AggEnv): AggSql => ({ sql: `${fn}(${env.time.sql})${present(col)}${env.over}`, type: 'time' });
/** Splunk's per_<unit>(x): the bucket's sum of x scaled to one unit of time. */
const perUnit =
  (unitSecs: number) =>
  (col: ColRef, env: AggEnv): AggSql => ({
    sql: `(sum(${toNum(col)})${env.over} * ${unitSecs} / ${env.spanSecs})`,
    type: 'num',
  });
const perDoc = (unit: string, secs: number) =>
  doc(
    `per_${unit}(field)`,
    `timechart only: the sum of the field in each bucket divided by the bucket's length in ${unit}s (${secs} s each).`,
    `* | timechart span=1h per_${unit}(bytes)`,
  );

export const AGGS: Record<string, AggDef> = {
  count: {
    doc: doc(
      'count | count(field) | count(eval(cond))',
      'Counts the events, with a field the events where it is not null, with eval(cond) the events where the condition is true.',
      '* | stats count by host',
    ),
    // a condition (count(eval(status=404))) counts the rows where it is true, as in Splunk
    sql: (col, env) => ({
      sql: `count(${col.type === 'bool' ? `CASE WHEN ${toBool(col)} THEN 1 END` : col.sql})${env.over}`,
      type: 'num',
    }),
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
  mean: {
    doc: doc('mean(field)', 'The same as avg: the mean of the numeric values.', '* | stats mean(bytes) by host'),
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
  range: {
    doc: doc('range(field)', 'The largest minus the smallest numeric value.', '* | stats range(bytes) by host'),
    sql: (col, env) => ({ sql: `(max(${toNum(col)})${env.over} - min(${toNum(col)})${env.over})`, type: 'num' }),
  },
  stdev: {
    doc: doc(
      'stdev(field)',
      'The sample standard deviation of the numeric values (null for fewer than two).',
      '* | stats stdev(bytes) by host',
    ),
    sql: numeric('stddev_samp'),
  },
  stdevp: {
    doc: doc('stdevp(field)', 'The population standard deviation of the numeric values.', '* | stats stdevp(bytes)'),
    sql: numeric('stddev_pop'),
  },
  var: {
    doc: doc(
      'var(field)',
      'The sample variance of the numeric values (null for fewer than two).',
      '* | stats var(bytes) by host',
    ),
    sql: numeric('var_samp'),
  },
  varp: {
    doc: doc('varp(field)', 'The population variance of the numeric values.', '* | stats varp(bytes)'),
    sql: numeric('var_pop'),
  },
  dc: {
    doc: doc('dc(field)', 'Counts the distinct values of a field.', '* | stats dc(user) by host'),
    sql: (col, env) => ({ sql: `count(DISTINCT ${col.sql})${env.over}`, type: 'num' }),
  },
  mode: {
    doc: doc(
      'mode(field)',
      'The most frequent value of a field (one of them when several are as frequent).',
      '* | stats mode(status) by host',
    ),
    sql: (col, env) => ({ sql: `mode(${col.sql})${env.over}`, type: col.type }),
  },
  values: {
    doc: doc(
      'values(field)',
      'The distinct values of a field, sorted, at most 100.',
      '* | stats values(status) by host',
    ),
    // Splunk's values(): distinct values, sorted, capped; nulls are no values (a group whose rows
    // all lack the field gets none, not [null])
    sql: (col, env) => ({
      // a multivalue's values count one by one (Splunk)
      sql:
        col.type === 'list'
          ? `list_slice(list_sort(list_distinct(flatten(list(CAST(${col.sql} AS VARCHAR[]))${present(col)}${env.over}))), 1, 100)`
          : `list_slice(list_sort(list(DISTINCT ${toStr(col)})${present(col)}${env.over}), 1, 100)`,
      type: 'list',
    }),
  },
  list: {
    doc: doc(
      'list(field)',
      'The values of a field in the order the events come (newest first unless sorted), repeats kept, at most 100.',
      '* | stats list(status) by clientip',
    ),
    needs: 'order',
    sql: (col, env) => ({
      sql:
        col.type === 'list'
          ? `list_slice(flatten(list(CAST(${col.sql} AS VARCHAR[]) ORDER BY ${env.seq})${present(col)}${env.over}), 1, 100)`
          : `list_slice(list(${toStr(col)} ORDER BY ${env.seq})${present(col)}${env.over}, 1, 100)`,
      type: 'list',
    }),
  },
  first: {
    doc: doc(
      'first(field)',
      'The first value seen in the current order: the newest event’s unless the events were sorted.',
      '* | stats first(status) by host',
    ),
    needs: 'order',
    sql: valueAt('arg_min', 'seq'),
  },
  last: {
    doc: doc(
      'last(field)',
      'The last value seen in the current order: the oldest event’s unless the events were sorted.',
      '* | stats last(status) by host',
    ),
    needs: 'order',
    sql: valueAt('arg_max', 'seq'),
  },
  latest: {
    doc: doc(
      'latest(field)',
      'The value of the field in the newest event having it.',
      '* | stats latest(status) by host',
    ),
    needs: 'time',
    sql: valueAt('arg_max', 'time'),
  },
  earliest: {
    doc: doc(
      'earliest(field)',
      'The value of the field in the oldest event having it.',
      '* | stats earliest(status) by host',
    ),
    needs: 'time',
    sql: valueAt('arg_min', 'time'),
  },
  latest_time: {
    doc: doc(
      'latest_time(field)',
      'The time of the newest event having the field.',
      '* | stats latest_time(user) as last_seen by host',
    ),
    needs: 'time',
    sql: timeOf('max'),
  },
  earliest_time: {
    doc: doc(
      'earliest_time(field)',
      'The time of the oldest event having the field.',
      '* | stats earliest_time(user) as first_seen by host',
    ),
    needs: 'time',
    sql: timeOf('min'),
  },
  median: {
    doc: doc(
      'median(field)',
      'The middle value of a numeric field (the 50th percentile, interpolated).',
      '* | stats median(duration_ms) by service',
    ),
    sql: (col, env) => quantile(col, 0.5, env.over),
  },
  per_second: { doc: perDoc('second', 1), timechart: true, sql: perUnit(1) },
  per_minute: { doc: perDoc('minute', 60), timechart: true, sql: perUnit(60) },
  per_hour: { doc: perDoc('hour', 3600), timechart: true, sql: perUnit(3600) },
  per_day: { doc: perDoc('day', 86400), timechart: true, sql: perUnit(86400) },
};
