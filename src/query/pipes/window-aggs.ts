import type { StageBuilder } from '../stages.js';
import { aggName, aggSql, prepareAggs, type Agg } from './aggregations.js';

/**
 * Adds aggregations run as window functions (`over`: `OVER (…)`) to every row as columns, replacing
 * a column of the same name (eventstats, streamstats). A row lacking one of the `by` fields gets
 * none: its null group is not a group. `seq`: a column already numbering the rows in order.
 */
export function addWindowAggs(
  pipe: string,
  b: StageBuilder,
  aggs: Agg[],
  by: string[],
  over: string,
  seq?: string,
): void {
  const env = prepareAggs(pipe, aggs, b, 0, seq);
  const present = by.map((f) => `${b.col(f).sql} IS NOT NULL`).join(' AND ');
  b.setColumns(
    aggs.map((a) => {
      const s = aggSql(a, b, env, over);
      return { name: aggName(a), sql: present ? `CASE WHEN ${present} THEN ${s.sql} END` : s.sql, type: s.type };
    }),
  );
}
