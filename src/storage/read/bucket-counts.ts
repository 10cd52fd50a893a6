import type { Block } from '../blocks/block-files.js';
import type { LiveSegment } from '../wal/live-segment.js';
import type { Catalog } from '../catalog.js';
import type { UnreadableFiles } from './unreadable-files.js';
import { MINUTE_US } from '../blocks/minute-counts.js';
import { overlaps, selectBlocks, selectLive, type ScanPlan } from './scan-plan.js';
import { relationSql } from './relation-sql.js';
import type { BucketCounts, BucketCountSpec, QueryResult } from '../types.js';

type TimeRange = Pick<BucketCountSpec, 'fromUs' | 'toUs'>;

/** Blocks and live segments whose rows in `range` must be read (their counts cannot say). */
export interface RowPart {
  blocks: Block[];
  live: ScanPlan['live'];
  range: TimeRange;
}

/** What countBuckets answers from metadata, and what it must still read. */
export interface BucketPlan {
  /** Bucket number → events, from minute counts. */
  counts: Map<number, number>;
  fromMetadata: number;
  rows: RowPart[];
  candidateEvents: number;
}

/**
 * The range split into whole minutes [a, b) (minute numbers), answered by minute counts, and the
 * sub-minute edges [from, a·MINUTE) and [b·MINUTE, to), answered by rows. Bounds are rounded the
 * way the scan relation's time filter rounds them.
 */
interface Split {
  a: number;
  b: number;
  edges: { range: TimeRange; minute: number }[];
}

function split(t: TimeRange): Split | undefined {
  const from = t.fromUs === undefined ? undefined : Math.floor(t.fromUs);
  const to = t.toUs === undefined ? undefined : Math.ceil(t.toUs);
  const a = from === undefined ? -Infinity : Math.ceil(from / MINUTE_US);
  const b = to === undefined ? Infinity : Math.floor(to / MINUTE_US);
  if (a >= b) return undefined;
  const edges: Split['edges'] = [];
  if (from !== undefined && from < a * MINUTE_US)
    edges.push({ range: { fromUs: from, toUs: a * MINUTE_US }, minute: a - 1 });
  if (to !== undefined && b * MINUTE_US < to) edges.push({ range: { fromUs: b * MINUTE_US, toUs: to }, minute: b });
  return { a, b, edges };
}

/** Adds minute counts inside [a, b) into bucket counts; returns the events added. */
function addMinutes(acc: Map<number, number>, minutes: Iterable<[number, number]>, s: Split, spanMin: number): number {
  let added = 0;
  for (const [m, n] of minutes) {
    if (m < s.a || m >= s.b) continue;
    const bucket = Math.floor(m / spanMin);
    acc.set(bucket, (acc.get(bucket) ?? 0) + n);
    added += n;
  }
  return added;
}

function* blockMinutes(b: Block): Iterable<[number, number]> {
  const { minutes, counts } = b.minutes!;
  for (let i = 0; i < minutes.length; i++) yield [minutes[i], counts[i]];
}

/**
 * Plans an unfiltered count per bucket of `spanUs`. Pure, synchronous: the caller takes the plan
 * and pins its files in one step, so a seal or merge in between cannot count an event twice.
 * Sources are the blocks and live partitions a scan of `spec` would keep. A source whose minute
 * counts are known (and that starts after 1970, where minute numbers are exact) is counted from
 * them over the whole minutes of the range, and read only for the sub-minute edges of the range
 * when it has events in the edge's minute. Everything else — old sidecars, restored segments
 * without counts, a span that is not a whole number of minutes, a range shorter than a minute —
 * is read over the whole range.
 */
export function planBuckets(
  blocks: Iterable<Block>,
  segs: Iterable<LiveSegment>,
  spec: BucketCountSpec,
  spanUs: number,
): BucketPlan {
  const keptBlocks = selectBlocks(blocks, { ...spec, requiredTokens: [] }).blocks;
  const keptLive = selectLive(segs, spec);
  let candidateEvents = 0;
  for (const b of keptBlocks) candidateEvents += b.meta.count;
  for (const l of keptLive) for (const p of l.parts) candidateEvents += p.count;
  const counts = new Map<number, number>();
  const s = spanUs > 0 && spanUs % MINUTE_US === 0 ? split(spec) : undefined;
  if (!s)
    return { counts, fromMetadata: 0, rows: [{ blocks: keptBlocks, live: keptLive, range: spec }], candidateEvents };
  const spanMin = spanUs / MINUTE_US;
  const whole: RowPart = { blocks: [], live: [], range: spec };
  const edges: RowPart[] = s.edges.map((e) => ({ blocks: [], live: [], range: e.range }));
  let fromMetadata = 0;
  for (const b of keptBlocks) {
    if (!b.minutes || b.meta.minUs < 0) {
      whole.blocks.push(b);
      continue;
    }
    fromMetadata += addMinutes(counts, blockMinutes(b), s, spanMin);
    s.edges.forEach((e, i) => {
      if (overlaps(e.range, b.meta.minUs, b.meta.maxUs) && b.minutes!.minutes.includes(e.minute))
        edges[i].blocks.push(b);
    });
  }
  for (const l of keptLive) {
    // a segment is read whole or not at all (its rows are filtered by env/index/time, not by partition)
    if (l.parts.some((p) => !p.minutes || p.minUs < 0)) {
      whole.live.push(l);
      continue;
    }
    for (const p of l.parts) fromMetadata += addMinutes(counts, p.minutes!, s, spanMin);
    s.edges.forEach((e, i) => {
      const parts = l.parts.filter((p) => overlaps(e.range, p.minUs, p.maxUs) && p.minutes!.has(e.minute));
      if (parts.length) edges[i].live.push({ seg: l.seg, parts });
    });
  }
  const rows = [whole, ...edges].filter((r) => r.blocks.length + r.live.length > 0);
  return { counts, fromMetadata, rows, candidateEvents };
}

/** One statement counting the rows of every RowPart per bucket (`epoch_us(_time) // spanUs`, as timechart does). */
export function rowCountSql(rows: RowPart[], spec: BucketCountSpec, spanUs: number): string {
  const rels = rows.map((r) => {
    const plan: ScanPlan = { blocks: r.blocks, rows: new Map(), live: r.live, fields: new Map(), candidateEvents: 0 };
    return `SELECT _time FROM ${relationSql(plan, { ...spec, fromUs: r.range.fromUs, toUs: r.range.toUs, requiredTokens: [], fields: [] })} AS e`;
  });
  return `SELECT epoch_us(_time) // ${spanUs} AS b, count(*) AS n FROM (${rels.join(' UNION ALL ')}) GROUP BY 1`;
}

export interface BucketSources {
  blocks: Iterable<Block>;
  live: Iterable<LiveSegment>;
  /** Pins what the row part reads until it is done (merge, retention and sealing wait; other nodes' blocks are fetched); call it in the planning step. */
  hold: (blocks: Block[], files: string[]) => Promise<() => void>;
  query: (sql: string) => Promise<QueryResult>;
}

/** The blocks and live segments a count may read (none DuckDB could not read before), pinned through the catalog. */
export function readableSources(
  catalog: Catalog,
  live: Iterable<LiveSegment>,
  unreadable: UnreadableFiles,
  query: (sql: string) => Promise<QueryResult>,
): BucketSources {
  const readable = <T extends { path: string }>(xs: Iterable<T>) => [...xs].filter((x) => !unreadable.has(x.path));
  return { blocks: readable(catalog.all()), live: readable(live), hold: (b, f) => catalog.hold(b, f), query };
}

/** EventStore.countByBucket: minute counts where they answer, one DuckDB statement for the rest. */
export async function countBuckets(src: BucketSources, spec: BucketCountSpec, spanUs: number): Promise<BucketCounts> {
  const plan = planBuckets(src.blocks, src.live, spec, spanUs);
  const counts = plan.counts;
  let fromRows = 0;
  if (plan.rows.length > 0) {
    const blocks = [...new Set(plan.rows.flatMap((r) => r.blocks))];
    const files = [
      ...new Set(plan.rows.flatMap((r) => [...r.blocks.map((b) => b.path), ...r.live.map((l) => l.seg.path)])),
    ];
    const release = await src.hold(blocks, files);
    try {
      const r = await src.query(rowCountSql(plan.rows, spec, spanUs));
      for (const [b, n] of r.rows) {
        if (b === null) continue;
        counts.set(Number(b), (counts.get(Number(b)) ?? 0) + Number(n));
        fromRows += Number(n);
      }
    } finally {
      release();
    }
  }
  const buckets = [...counts].sort((x, y) => x[0] - y[0]);
  return { buckets, candidateEvents: plan.candidateEvents, fromMetadata: plan.fromMetadata, fromRows };
}
