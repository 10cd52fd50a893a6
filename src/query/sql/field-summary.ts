import type { CompiledQuery } from '../compile.js';
import { fieldOfColumnSql, ident } from '../sql.js';
import { foundPairsSql } from '../extract/found-pairs.js';

/**
 * The fields summary (run-fields.ts) over a search-only compile: the newest `sample` matches,
 * every one of `names` cast to text and unpivoted to (name, value), plus the fields found in
 * their messages where the row does not store that name (extract/found-pairs.ts), then per name
 * the `top` most common values (ties by value). Rows: `name, value, c` (that value's count) and
 * `total` (the name's non-null values in the sample).
 */
export function fieldSummarySql(c: CompiledQuery, names: string[], sample: number, top: number): string {
  const cast = names.map((n) => `CAST(${ident(n)} AS VARCHAR) AS ${ident(n)}`).join(', ');
  return (
    `${c.with}, smp AS (SELECT *, row_number() OVER () AS __r FROM (SELECT * FROM ${c.last} ORDER BY _time DESC LIMIT ${sample})), ` +
    `st AS (SELECT __r, ${fieldOfColumnSql('name')} AS name, value FROM (UNPIVOT (SELECT __r, ${cast} FROM smp) ON COLUMNS(* EXCLUDE (__r)) INTO NAME name VALUE value)), ` +
    `fx AS (${foundPairsSql('smp')}), ` +
    `u AS (SELECT name, value FROM st UNION ALL SELECT name, value FROM fx ANTI JOIN st USING (__r, name)), ` +
    `g AS (SELECT name, value, count(*) AS c FROM u GROUP BY ALL) ` +
    `SELECT name, value, c, sum(c) OVER (PARTITION BY name) AS total FROM g QUALIFY row_number() OVER (PARTITION BY name ORDER BY c DESC, value) <= ${top}`
  );
}
