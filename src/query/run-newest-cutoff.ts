import type { EventStore, ScanSpec } from '../storage/types.js';
import { compile } from './compile.js';
import { scanSpec, userFields, type Prepared } from './prepare.js';
import { jsonValue } from './results.js';
import { searchFields } from './search/filter-logic.js';
import { newestCutoffSql } from './sql/newest-cutoff.js';

/**
 * The two-step path for the newest `k` matches of a search (plain event searches, the fields
 * sample, plain exports). Whole events are wide, and most blocks hold none of the newest matches:
 * step one reads only `_time` and the filtered columns to count the matches and find the time of
 * the k-th newest; step two reads whole events, only from blocks and rows from that time on
 * (`sinceSpec` here, compile's `sinceUs`).
 */
export interface Cutoff {
  /** Events the search matches. */
  n: number;
  /** Time of the k-th newest match (of the oldest when fewer match), epoch µs; null when none. */
  cutoffUs: number | null;
  /** Events the first scan kept before filtering (meta.scanned). */
  scanned: number;
}

/** Step one: counts the search's matches and finds the time of the k-th newest. */
export async function newestCutoff(store: EventStore, p: Prepared, k: number): Promise<Cutoff> {
  return store.scan(scanSpec(p, userFields(searchFields(p.q.search))), async (rel, exec) => {
    const c = compile(p.q, rel, { nowMs: p.nowMs, limit: k, searchOnly: true });
    const r = await exec(newestCutoffSql(c, k));
    const cutoff = jsonValue(r.rows[0][1]);
    return {
      n: Number(jsonValue(r.rows[0][0])),
      cutoffUs: cutoff === null ? null : Number(cutoff),
      scanned: rel.candidateEvents,
    };
  });
}

/** Step two's scan: whole events, pruned to blocks from the cutoff on. */
export function sinceSpec(p: Prepared, cutoffUs: number): ScanSpec {
  const spec = scanSpec(p, '*');
  spec.fromUs = Math.max(spec.fromUs ?? -Infinity, cutoffUs);
  return spec;
}
