import { doc } from '../doc.js';
import type { Schema } from '../schema.js';
import { ident, str } from '../sql.js';
import type { PipeDef } from './pipe.js';

/**
 * `fieldsummary [maxvals=N]`: one row per field of the results (core fields included): how many
 * rows have it, its distinct values, how many of those values are numbers, their min, max, mean
 * and standard deviation, and up to N (default 10) of its distinct values, sorted.
 */
export interface FieldsummaryPipe {
  kind: 'fieldsummary';
  maxvals?: number;
}

const COLUMNS: Schema = new Map([
  ['field', 'str'],
  ['count', 'num'],
  ['distinct_count', 'num'],
  ['numeric_count', 'num'],
  ['min', 'num'],
  ['max', 'num'],
  ['mean', 'num'],
  ['stdev', 'num'],
  ['values', 'list'],
]);

export const fieldsummaryPipe: PipeDef<FieldsummaryPipe> = {
  name: 'fieldsummary',
  doc: doc(
    'fieldsummary [maxvals=<N>]',
    'One row per field of the results with its count, distinct count, numeric count, min, max, mean, standard deviation and up to N of its distinct values.',
    'sourcetype=nginx | fieldsummary maxvals=5',
  ),
  parse(p) {
    if (!p.acceptKeyword('maxvals')) return { kind: 'fieldsummary' };
    p.expectOp('=', 'expr');
    return { kind: 'fieldsummary', maxvals: p.positiveInt('a number of values') };
  },
  print: (n) => `fieldsummary${n.maxvals === undefined ? '' : ` maxvals=${n.maxvals}`}`,
  reads: () => '*',
  writes: () => 'all',
  compile(n, b) {
    b.markMatched();
    const names = [...b.schema.keys()];
    const max = n.maxvals ?? 10;
    // one pass over the rows computes every field's aggregates into one wide row; the answer then
    // reads that row once per field
    const aggs: string[] = [];
    names.forEach((f, i) => {
      const col = ident(f);
      const text = `CAST(${col} AS VARCHAR)`;
      const num = `TRY_CAST(${text} AS DOUBLE)`;
      aggs.push(
        `count(${col}) AS c${i}`,
        `count(DISTINCT ${text}) AS d${i}`,
        `count(${num}) AS n${i}`,
        `min(${num}) AS mi${i}`,
        `max(${num}) AS ma${i}`,
        `avg(${num}) AS av${i}`,
        `stddev_samp(${num}) AS sd${i}`,
        `list_slice(list_sort(list(DISTINCT ${text}) FILTER (WHERE ${col} IS NOT NULL)), 1, ${max}) AS v${i}`,
      );
    });
    b.push(`SELECT ${aggs.join(', ')} FROM ${b.cur}`, new Map());
    const wide = b.cur;
    const rows = names.map(
      (f, i) =>
        `SELECT ${str(f)} AS field, c${i} AS count, d${i} AS distinct_count, n${i} AS numeric_count, mi${i} AS min, ma${i} AS max, av${i} AS mean, sd${i} AS stdev, v${i} AS "values" FROM ${wide}`,
    );
    b.push(rows.join(' UNION ALL '), new Map(COLUMNS));
    b.order = [{ sql: 'field', desc: false, cols: ['field'] }];
    b.mode = 'table';
  },
};
