import type { CompiledQuery } from '../compile.js';

/**
 * The first step of the two-step path for the newest `k` matches (run-newest-cutoff.ts): the
 * number of matches `n`, and `cutoff`, the time in epoch µs of the k-th newest (of the oldest when
 * fewer match; NULL when none does). Over a search-only compile, so that only `_time` and the
 * filtered columns are read.
 */
export function newestCutoffSql(c: CompiledQuery, k: number): string {
  // fast path: DuckDB's top-k aggregate max(x, k) takes k below MAX_TOP_K only
  if (k < MAX_TOP_K)
    return `${c.with} SELECT count(*) AS n, epoch_us(list_min(max(_time, ${k}))) AS cutoff FROM ${c.last}`;
  // the export maximum (1,000,000) and up: the k-th newest by a sort, the oldest when fewer match
  return (
    `${c.with} SELECT (SELECT count(*) FROM ${c.last}) AS n, ` +
    `epoch_us(coalesce((SELECT _time FROM ${c.last} ORDER BY _time DESC LIMIT 1 OFFSET ${k - 1}), (SELECT min(_time) FROM ${c.last}))) AS cutoff`
  );
}

/** DuckDB refuses max(x, n) for n of a million or more ("n value must be < 1000000"). */
const MAX_TOP_K = 1_000_000;
