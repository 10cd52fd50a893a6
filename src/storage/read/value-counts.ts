import type { Block } from '../blocks/block-files.js';
import type { LiveSegment } from '../wal/live-segment.js';
import { ident } from '../sql-quote.js';
import { selectBlocks, selectLive, type ScanPlan } from './scan-plan.js';
import { relationSql } from './relation-sql.js';
import type { BucketSources, RowPart } from './bucket-counts.js';
import type { BucketCountSpec, CountColumn, ValueCounts } from '../types.js';

// EventStore.countByValue: `* | stats count by host` (or source, sourcetype, index, env) from
// sidecars for every block the range holds whole, rows for the rest: blocks that cross a bound of
// the range, blocks without value counts (older sidecars, more than VALUE_COUNTS_MAX values) and
// live segments. Planned in one synchronous step, as countBuckets does, so a seal or merge in
// between cannot count an event twice.

interface ValuePlan {
  counts: Map<string, number>;
  fromMetadata: number;
  rows: RowPart;
  candidateEvents: number;
}

function add(counts: Map<string, number>, v: string, n: number): void {
  counts.set(v, (counts.get(v) ?? 0) + n);
}

/** True when every event of the block is inside the range, as the scan relation bounds it. */
function holdsWhole(b: Block, spec: BucketCountSpec): boolean {
  return (
    (spec.fromUs === undefined || b.meta.minUs >= Math.floor(spec.fromUs)) &&
    (spec.toUs === undefined || b.meta.maxUs < Math.ceil(spec.toUs))
  );
}

export function planValues(
  blocks: Iterable<Block>,
  segs: Iterable<LiveSegment>,
  spec: BucketCountSpec,
  column: CountColumn,
): ValuePlan {
  const kept = selectBlocks(blocks, { ...spec, requiredTokens: [] }).blocks;
  const live = selectLive(segs, spec);
  const rows: RowPart = { blocks: [], live, range: spec };
  const counts = new Map<string, number>();
  let candidateEvents = 0;
  let fromMetadata = 0;
  for (const l of live) for (const p of l.parts) candidateEvents += p.count;
  for (const b of kept) {
    candidateEvents += b.meta.count;
    const known = column === 'env' || column === 'index' ? undefined : b.meta.valueCounts?.[column];
    if (!holdsWhole(b, spec)) rows.blocks.push(b);
    else if (column === 'env' || column === 'index') {
      add(counts, b.meta[column], b.meta.count);
      fromMetadata += b.meta.count;
    } else if (known) {
      known.v.forEach((v, i) => add(counts, v, known.n[i]));
      fromMetadata += b.meta.count;
    } else rows.blocks.push(b);
  }
  return { counts, fromMetadata, rows, candidateEvents };
}

/** Events per value of `column` over every event of the range, unfiltered. */
export async function countValues(
  src: BucketSources,
  spec: BucketCountSpec,
  column: CountColumn,
): Promise<ValueCounts> {
  const plan = planValues(src.blocks, src.live, spec, column);
  const { counts, rows } = plan;
  let fromRows = 0;
  if (rows.blocks.length + rows.live.length > 0) {
    const release = await src.hold(rows.blocks, [
      ...rows.blocks.map((b) => b.path),
      ...rows.live.map((l) => l.seg.path),
    ]);
    try {
      const scan: ScanPlan = {
        blocks: rows.blocks,
        rows: new Map(),
        live: rows.live,
        fields: new Map(),
        candidateEvents: 0,
      };
      const rel = relationSql(scan, { ...spec, requiredTokens: [], fields: [] });
      const r = await src.query(`SELECT ${ident(column)} AS v, count(*) AS n FROM ${rel} AS e GROUP BY 1`);
      for (const [v, n] of r.rows) {
        if (v === null) continue;
        add(counts, typeof v === 'string' ? v : JSON.stringify(v), Number(n));
        fromRows += Number(n);
      }
    } finally {
      release();
    }
  }
  return { counts, candidateEvents: plan.candidateEvents, fromMetadata: plan.fromMetadata, fromRows };
}
