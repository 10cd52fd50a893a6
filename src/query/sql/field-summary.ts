import type { CompiledQuery } from '../compile.js';
import { ident } from '../sql.js';

/**
 * The fields summary (run-fields.ts) over a search-only compile: the newest `sample` matches,
 * every one of `names` cast to text and unpivoted to (name, value), then per name the `top` most
 * common values (ties by value). Rows: `name, value, c` (that value's count) and `total` (the
 * name's non-null values in the sample).
 */
export function fieldSummarySql(c: CompiledQuery, names: string[], sample: number, top: number): string {
  const cast = names.map((n) => `CAST(${ident(n)} AS VARCHAR) AS ${ident(n)}`).join(', ');
  return (
    `${c.with}, smp AS (SELECT * FROM ${c.last} ORDER BY _time DESC LIMIT ${sample}), ` +
    `u AS (UNPIVOT (SELECT ${cast} FROM smp) ON COLUMNS(*) INTO NAME name VALUE value), ` +
    `g AS (SELECT name, value, count(*) AS c FROM u GROUP BY ALL) ` +
    `SELECT name, value, c, sum(c) OVER (PARTITION BY name) AS total FROM g QUALIFY row_number() OVER (PARTITION BY name ORDER BY c DESC, value) <= ${top}`
  );
}
