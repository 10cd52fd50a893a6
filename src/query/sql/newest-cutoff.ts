import type { CompiledQuery } from '../compile.js';

/**
 * The first step of the two-step path for the newest `k` matches (run-newest-cutoff.ts): the
 * number of matches `n`, and `cutoff`, the time in epoch µs of the k-th newest (of the oldest when
 * fewer match; NULL when none does). Over a search-only compile, so that only `_time` and the
 * filtered columns are read.
 */
export function newestCutoffSql(c: CompiledQuery, k: number): string {
  return `${c.with} SELECT count(*) AS n, epoch_us(list_min(max(_time, ${k}))) AS cutoff FROM ${c.last}`;
}
