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
  const p = onlyPipe(q);
  if (!p) return undefined;
  if (p.kind !== 'timechart' || p.by !== undefined || p.aggs.length !== 1) return undefined;
  const a = p.aggs[0];
  return plainCount(a) ? p : undefined;
}

/**
 * The query's one pipe when its search keeps every event scanned (one pipe, not append or join:
 * prepare narrowed the scan to the index= filters), else undefined.
 */
function onlyPipe(q: Query): Query['pipes'][number] | undefined {
  return matchesAll(q.search, true) && q.pipes.length === 1 ? q.pipes[0] : undefined;
}

/** `count` of every row: no field, no eval. */
const plainCount = (a: { fn: string; field?: unknown; expr?: unknown }): boolean =>
  a.fn === 'count' && a.field === undefined && a.expr === undefined;

const COUNT_COLUMNS: ReadonlySet<string> = new Set<CountColumn>(['host', 'source', 'sourcetype', 'index', 'env']);

/**
 * `* | stats count [as name] by host` (or source, sourcetype, index, env; also `| tstats count by
 * host`, the same answer): one count per value of one of the columns the store counts per block
 * (EventStore.countByValue), nothing else.
 */
export function countOnlyStats(q: Query): { column: CountColumn; name: string } | undefined {
  const p = onlyPipe(q);
  if (!p) return undefined;
  if (!(p.kind === 'stats' || (p.kind === 'tstats' && p.span === undefined))) return undefined;
  if (p.by.length !== 1 || p.aggs.length !== 1 || !COUNT_COLUMNS.has(p.by[0])) return undefined;
  const a = p.aggs[0];
  const name = aggName(a);
  // `stats count as host by host` is refused by the SQL path: let it say so
  if (!plainCount(a) || name === p.by[0]) return undefined;
  return { column: p.by[0] as CountColumn, name };
}

/**
 * `| tstats count [as name] [where index=…] by _time span=<span>`: one count per bucket of all
 * events, nothing else. Unlike timechart's, its rows are only the buckets that hold events.
 */
export function countOnlyTstatsByTime(q: Query): { span: string; name: string } | undefined {
  const p = onlyPipe(q);
  if (!p) return undefined;
  if (p.kind !== 'tstats' || p.span === undefined || p.by.length !== 1 || p.aggs.length !== 1) return undefined;
  const a = p.aggs[0];
  const name = aggName(a);
  if (!plainCount(a) || name === '_time') return undefined;
  return { span: p.span, name };
}
