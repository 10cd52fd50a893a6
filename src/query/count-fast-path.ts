import type { Query } from './parser.js';
import type { TimechartPipe } from './pipes/pipe-timechart.js';
import { conjuncts, type SearchNode } from './search/filter-logic.js';

/**
 * Which queries the store may answer from per-minute event counts (EventStore.countByBucket)
 * instead of rows. Only unfiltered counts qualify: the counts know nothing but time, env and index.
 */

/**
 * True when the search keeps every event of the scanned range: only `*` terms and
 * `earliest=`/`latest=` bounds, which the service already turns into the scan's time range.
 */
export function matchesAll(search: SearchNode): boolean {
  return conjuncts(search).every((c) => (c.kind === 'term' && /^\*+$/.test(c.text)) || c.kind === 'time');
}

/**
 * The timechart of `* | timechart [span=…] count [as name]`: one count per bucket of all events,
 * nothing else (no `by`, no other aggregation, no other pipe).
 */
export function countOnlyTimechart(q: Query): TimechartPipe | undefined {
  if (!matchesAll(q.search) || q.pipes.length !== 1) return undefined;
  const p = q.pipes[0];
  if (p.kind !== 'timechart' || p.by !== undefined || p.aggs.length !== 1) return undefined;
  const a = p.aggs[0];
  return a.fn === 'count' && a.field === undefined ? p : undefined;
}
