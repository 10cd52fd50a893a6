import type { CountColumn } from '../storage/types.js';
import type { Query } from './parser.js';
import { aggName } from './pipes/aggregations.js';
import type { TimechartPipe } from './pipes/pipe-timechart.js';
import { conjuncts, type SearchNode } from './search/filter-logic.js';

/**
 * Which queries the store may answer from per-minute event counts (EventStore.countByBucket)
 * instead of rows. Only unfiltered counts qualify: the counts know nothing but time, env and index.
 */

/**
 * True when the search keeps every event of the scanned range: only `*` terms and
 * `earliest=`/`latest=` bounds, which the service already turns into the scan's time range.
 * `indexesNarrowed`: the scan reads only the indexes the top-level `index=` filters name
 * (prepare.ts narrowIndexes, which runs unless the query has subqueries), so such a filter keeps
 * every event scanned too (`| tstats count where index=web by host`). Not `index=CASE(x)`: the
 * narrowing ignores case.
 */
export function matchesAll(search: SearchNode, indexesNarrowed = false): boolean {
  return conjuncts(search).every(
    (c) =>
      (c.kind === 'term' && /^\*+$/.test(c.text)) ||
      c.kind === 'time' ||
      (indexesNarrowed && c.kind === 'field' && c.field === 'index' && c.op === '=' && !c.caseSensitive),
  );
}

/**
 * The timechart of `* | timechart [span=…] count [as name]`: one count per bucket of all events,
 * nothing else (no `by`, no other aggregation, no other pipe).
 */
export function countOnlyTimechart(q: Query): TimechartPipe | undefined {
  // one pipe, not append or join: prepare narrowed the scan to the index= filters
  if (!matchesAll(q.search, true) || q.pipes.length !== 1) return undefined;
  const p = q.pipes[0];
  if (p.kind !== 'timechart' || p.by !== undefined || p.aggs.length !== 1) return undefined;
  const a = p.aggs[0];
  return a.fn === 'count' && a.field === undefined && a.expr === undefined ? p : undefined;
}

const COUNT_COLUMNS: ReadonlySet<string> = new Set<CountColumn>(['host', 'source', 'sourcetype', 'index', 'env']);

/**
 * `* | stats count [as name] by host` (or source, sourcetype, index, env; also `| tstats count by
 * host`, the same answer): one count per value of one of the columns the store counts per block
 * (EventStore.countByValue), nothing else.
 */
export function countOnlyStats(q: Query): { column: CountColumn; name: string } | undefined {
  // one pipe, not append or join: prepare narrowed the scan to the index= filters
  if (!matchesAll(q.search, true) || q.pipes.length !== 1) return undefined;
  const p = q.pipes[0];
  if (!(p.kind === 'stats' || (p.kind === 'tstats' && p.span === undefined))) return undefined;
  if (p.by.length !== 1 || p.aggs.length !== 1 || !COUNT_COLUMNS.has(p.by[0])) return undefined;
  const a = p.aggs[0];
  const name = aggName(a);
  // `stats count as host by host` is refused by the SQL path: let it say so
  if (a.fn !== 'count' || a.field !== undefined || a.expr !== undefined || name === p.by[0]) return undefined;
  return { column: p.by[0] as CountColumn, name };
}

/**
 * `| tstats count [as name] [where index=…] by _time span=<span>`: one count per bucket of all
 * events, nothing else. Unlike timechart's, its rows are only the buckets that hold events.
 */
export function countOnlyTstatsByTime(q: Query): { span: string; name: string } | undefined {
  // one pipe, not append or join: prepare narrowed the scan to the index= filters
  if (!matchesAll(q.search, true) || q.pipes.length !== 1) return undefined;
  const p = q.pipes[0];
  if (p.kind !== 'tstats' || p.span === undefined || p.by.length !== 1 || p.aggs.length !== 1) return undefined;
  const a = p.aggs[0];
  const name = aggName(a);
  if (a.fn !== 'count' || a.field !== undefined || name === '_time') return undefined;
  return { span: p.span, name };
}
