import type { DuckDBConnection } from '@duckdb/node-api';
import { queryOn } from '../duck.js';
import { lit } from '../sql-quote.js';
import { MINUTE_US } from '../partition.js';

export { MINUTE_US };

/**
 * Events per UTC minute of a block, as its sidecar stores them (`minuteCounts`): sparse and
 * ascending, minute k (minutes since the epoch) is `first + gaps[0] + … + gaps[k]` (gaps[0] = 0)
 * and holds `counts[k]` events. Gaps keep the JSON small: a busy day is ~1,440 pairs of small
 * numbers (≈ 10 KB), beside a token filter that is usually larger.
 */
export interface MinuteCountsJson {
  first: number;
  gaps: number[];
  counts: number[];
}

/** The same, decoded: parallel arrays of absolute minute numbers (ascending) and their counts. */
export interface MinuteCounts {
  minutes: number[];
  counts: number[];
}

export function encodeMinuteCounts(m: MinuteCounts): MinuteCountsJson {
  const first = m.minutes.length ? m.minutes[0] : 0;
  return { first, gaps: m.minutes.map((x, i) => (i === 0 ? 0 : x - m.minutes[i - 1])), counts: [...m.counts] };
}

/** Decodes a sidecar's counts; undefined (old sidecar, or a malformed entry) means "not known". */
export function decodeMinuteCounts(j: MinuteCountsJson | undefined): MinuteCounts | undefined {
  if (!j || !Array.isArray(j.gaps) || !Array.isArray(j.counts) || j.gaps.length !== j.counts.length) return undefined;
  const minutes = new Array<number>(j.gaps.length);
  let m = j.first;
  for (let i = 0; i < j.gaps.length; i++) minutes[i] = m += j.gaps[i];
  return { minutes, counts: j.counts };
}

/** A live partition's per-minute map as parallel sorted arrays. */
export function fromMinuteMap(map: Map<number, number>): MinuteCounts {
  const minutes = [...map.keys()].sort((a, b) => a - b);
  return { minutes, counts: minutes.map((m) => map.get(m)!) };
}

export function totalOf(m: MinuteCounts): number {
  let n = 0;
  for (const c of m.counts) n += c;
  return n;
}

/**
 * Counts of a written block file, read back from its `_time` column (the only column read: a few
 * ms per 100k events). Read from the file itself, so the counts describe exactly the rows a scan
 * of the block sees. Integer division truncates toward zero: for times before 1970 the minute is
 * off by one, which is why the bucket planner never trusts counts of a block starting before 1970.
 */
export async function minuteCountsOf(c: DuckDBConnection, parquet: string): Promise<MinuteCounts> {
  const r = await queryOn(
    c,
    `SELECT epoch_us(_time) // ${MINUTE_US} AS m, count(*) AS n FROM read_parquet(${lit(parquet)}) GROUP BY 1 ORDER BY 1`,
  );
  return { minutes: r.rows.map((x) => Number(x[0])), counts: r.rows.map((x) => Number(x[1])) };
}
