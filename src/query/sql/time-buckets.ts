import type { CompiledQuery } from '../compile.js';
import { ident, str } from '../sql.js';

/** Events per time bucket of the compiled search's last stage: rows `b` (bucket number, epoch µs // span), `n`, by `b`. */
export function bucketCountsSql(c: CompiledQuery, spanUs: number): string {
  return `${c.with} SELECT epoch_us(_time) // ${spanUs} AS b, count(*) AS n FROM ${c.last} GROUP BY 1 ORDER BY 1`;
}

/**
 * Events per time bucket and value of `by`, folded into the `k` most common values (by count over
 * the whole range, ties by value): rows `b`, `r` (the value's rank, NULL for the rest), the value,
 * `missing` (the value is NULL) and the count, by `b`. Values spelled like one of `reserved` (the
 * answer's own series names, OTHER and NULL) never rank. Values are grouped as stored (typed).
 */
export function stackedBucketsSql(c: CompiledQuery, by: string, spanUs: number, k: number, reserved: string[]): string {
  // a field that no event of the scan has is not a column of the relation: every event is NULL
  const col = c.columns.some((x) => x.name === by) ? ident(by) : 'NULL';
  return (
    `${c.with}, g AS (SELECT epoch_us(_time) // ${spanUs} AS b, ${col} AS v, count(*) AS n FROM ${c.last} GROUP BY 1, 2), ` +
    `top AS (SELECT v, row_number() OVER (ORDER BY sum(n) DESC, v) AS r FROM g ` +
    `WHERE v IS NOT NULL AND CAST(v AS VARCHAR) NOT IN (${reserved.map(str).join(', ')}) GROUP BY v QUALIFY r <= ${k}) ` +
    `SELECT g.b, top.r, any_value(top.v), g.v IS NULL AS missing, sum(g.n) FROM g LEFT JOIN top ON g.v = top.v GROUP BY 1, 2, 4 ORDER BY 1`
  );
}
