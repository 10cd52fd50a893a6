import { closeSync, openSync, rmSync } from 'node:fs';
import type { Duck } from './duck.js';
import { lit } from './sql-quote.js';
import { syncDir } from './fsync.js';
import { Wal } from './wal/wal.js';
import type { LiveSegment } from './wal/live-segment.js';
import { walRowsSql } from './wal/wal-line.js';
import { timeInRange } from './wal/event-guard.js';
import { writeColumns } from './wal/live-columns.js';
import { deleteBlockFiles, type Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { writeBlocks, type FieldsByPart } from './blocks/seal-blocks.js';
import { partKey } from './partition.js';

// The seal: a closed WAL segment becomes blocks, one per env/index/day, then commits with the
// marker `wal/<seq>.sealed` (docs/storage.md, "Recovery rule"). The engine runs the three steps
// in order and swaps live data for the blocks in memory between the commit and the clean-up.

/**
 * Segments with at most this many env/index/day partitions are sealed straight from the WAL file
 * (one JSON pass per partition pass) unless a columnar copy exists (wal/live-columns.ts).
 */
export const DIRECT_SEAL_MAX_PARTS = 2;

/**
 * Step 1: writes and publishes the blocks of one closed segment. Not committed yet: until the
 * marker exists, a restart deletes them and replays the segment. `tmpDir` holds columnar copies.
 */
export async function writeSegmentBlocks(
  duck: Duck,
  seg: LiveSegment,
  target: BlockTarget,
  tmpDir: string,
): Promise<Block[]> {
  // written before the store's guard: the fallback path gives such events their arrival time
  // (wal/segment-repair.ts) rather than sealing a block whose times JS dates cannot all print
  if ([...seg.partitions.values()].some((p) => !timeInRange(p.minUs) || !timeInRange(p.maxUs))) {
    throw new Error(`cannot seal WAL segment ${seg.seq}: it holds an event time outside years 1..9999`);
  }
  return duck.with(async (c) => {
    const origin = { walSeg: seg.seq, replaces: [] };
    const parts = [...seg.partitions.values()].sort((a, b) => a.day - b.day);
    // many partitions (a backfill spread over days): the segment is parsed once into its columnar
    // copy, so every later pass (one sorted COPY and one token filter per partition) reads only the
    // columns and row groups it needs, and nothing has to fit in memory (an in-memory temp table of
    // a 64 MiB segment did not fit a 512 MB DuckDB). Live traffic puts a segment in one or two
    // partitions, and each pass over the WAL JSON costs less than writing and re-reading a copy.
    if (!seg.columns && seg.partitions.size > DIRECT_SEAL_MAX_PARTS) await writeColumns(c, seg, tmpDir);
    const rows = seg.columns ? `read_parquet(${lit(seg.columns)})` : walRowsSql([seg.path]);
    const made = await writeBlocks(c, rows, target, origin, liveFields(seg), parts);
    // DuckDB skips a line it cannot read (ignore_errors, for a torn tail): fewer rows than the
    // acknowledged events means it skipped one of them (a time its BIGINT column cannot hold, written
    // before the store's guard), so this seal must not commit; the fallback path rewrites the segment
    const written = made.reduce((n, b) => n + b.meta.count, 0);
    if (written < seg.count) {
      for (const b of made) deleteBlockFiles(b);
      throw new Error(`cannot seal WAL segment ${seg.seq}: DuckDB read ${written} of its ${seg.count} events`);
    }
    return made;
  });
}

/**
 * Step 2, the commit point: the marker `wal/<seq>.sealed`, durable in its directory. If it cannot
 * be made, the blocks go again (the segment stays live and is sealed again later). Answers the
 * marker's path.
 */
export function commitSeal(walDir: string, seq: number, made: Block[]): string {
  const marker = Wal.markerPath(walDir, seq);
  try {
    closeSync(openSync(marker, 'w'));
    syncDir(walDir);
  } catch (e) {
    for (const b of made) deleteBlockFiles(b);
    throw e;
  }
  return marker;
}

/**
 * Step 3, after the commit: the segment and its summary go, durably, before the marker does
 * (a crash in between leaves the marker, and recovery finishes the job).
 */
export function removeSealedSegment(walDir: string, seg: LiveSegment, marker: string): void {
  rmSync(seg.path, { force: true });
  if (seg.columns) rmSync(seg.columns, { force: true });
  rmSync(Wal.summaryPath(walDir, seg.seq), { force: true });
  syncDir(walDir);
  rmSync(marker, { force: true });
}

/** A live segment's field accounting in writeBlocks' shape. */
function liveFields(seg: LiveSegment): FieldsByPart {
  const out: FieldsByPart = new Map();
  for (const p of seg.partitions.values()) {
    out.set(
      partKey(p.env, p.index, p.day),
      [...p.fields].map(([name, f]) => ({ name, bits: f.bits, count: f.count })),
    );
  }
  return out;
}
