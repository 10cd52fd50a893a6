import { ident } from '../sql.js';
import type { StageBuilder } from '../stages.js';
import { aggName, aggSql, type Agg } from './aggregations.js';

/**
 * Adds aggregations run as window functions (`over`: `OVER (…)`) to every row as columns, replacing
 * a column of the same name (eventstats, streamstats). A row lacking one of the `by` fields gets
 * none: its null group is not a group.
 */
export function addWindowAggs(b: StageBuilder, aggs: Agg[], by: string[], over: string): void {
  const present = by.map((f) => `${b.col(f).sql} IS NOT NULL`).join(' AND ');
  const schema = new Map(b.schema);
  const replaced: string[] = [];
  const added: string[] = [];
  for (const a of aggs) {
    const s = aggSql(a, b, over);
    const name = aggName(a);
    const expr = `${present ? `CASE WHEN ${present} THEN ${s.sql} END` : s.sql} AS ${ident(name)}`;
    (b.schema.has(name) ? replaced : added).push(expr);
    schema.set(name, s.type);
  }
  const star = replaced.length ? `* REPLACE (${replaced.join(', ')})` : '*';
  b.push(`SELECT ${[star, ...added].join(', ')} FROM ${b.cur}`, schema);
}
