import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dropUnfinishedParts } from './parts/part-commit.js';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Wal } from './wal/wal.js';
import { COLUMNS_FILE } from './wal/live-columns.js';
import { deleteBlockFiles, loadBlocks, moveBlockFiles, type Block } from './blocks/block-files.js';
import type { ProblemReporter } from './problems.js';

// Start-up, before the engine takes writes: the recovery rule of docs/storage.md ("Recovery rule
// (exactly once)") applied to what a crash or a stop left on disk. The replay of the WAL segments
// that were never sealed, its last step, is wal/replay.ts. Steps are numbered as in the docs.

/** What recover() found: the committed blocks and the WAL segments to replay. */
export interface Recovered {
  blocks: Block[];
  /** Unsealed WAL segments to replay, ascending. */
  segments: number[];
  nextSeg: number;
  maxBlockSeq: number;
  /** Blocks step 1 set aside, for salvage.ts to read back what it can. */
  quarantined: Quarantined[];
}

/** A block step 1 set aside: where it was, where it is now, why. */
export interface Quarantined {
  from: string;
  to: string;
  reason: string;
}

/** Scratch copies of seals made by versions before live-columns.ts. */
const OLD_SCRATCH = /^seal-\d+\.parquet$/;

/**
 * Removes scratch files of the previous run: DuckDB's spill space (before DuckDB opens it again)
 * and the columnar copies of live segments (wal/live-columns.ts).
 */
export function clearScratch(dataDir: string): void {
  rmSync(join(dataDir, 'tmp', 'duckdb'), { recursive: true, force: true });
  const tmpDir = join(dataDir, 'tmp');
  if (existsSync(tmpDir))
    for (const n of readdirSync(tmpDir))
      if (COLUMNS_FILE.test(n) || OLD_SCRATCH.test(n)) rmSync(join(tmpDir, n), { force: true });
}

/**
 * Step 1's way out for a damaged sidecar: the block moves to `quarantineDir` (same relative path),
 * is logged and reported, and svc starts without it rather than not at all.
 */
export function quarantineTo(
  root: string,
  quarantineDir: string,
  log: Logger,
  problems: ProblemReporter,
): (parquet: string, reason: string) => string {
  return (parquet, reason) => {
    const dest = moveBlockFiles(parquet, root, quarantineDir);
    log.error({ block: parquet, movedTo: dest, reason }, 'block sidecar is damaged: block set aside');
    // resolved once salvage.ts has read its rows back into new blocks
    problems.report(
      'block_quarantined',
      `damaged sidecar (${reason}): block moved to ${dest}, its events are not searchable unless read back`,
      parquet,
    );
    return dest;
  };
}

/**
 * Start-up recovery (docs/storage.md): finish committed merges and seals, drop blocks of seals
 * that never committed (their events are still in the WAL), and list the segments to replay.
 */
export function recover(
  root: string,
  walDir: string,
  quarantine: (parquet: string, reason: string) => string,
): Recovered {
  const quarantined: Quarantined[] = [];
  dropUnfinishedParts(walDir); // step 0: parts of a commit that never finished (parts/part-commit.ts)
  const blocks = finishMerges(
    loadBlocks(root, (from, reason) => quarantined.push({ from, to: quarantine(from, reason), reason })),
  );
  finishSeals(walDir);
  const segments = Wal.segments(walDir);
  const unsealed = new Set(segments);
  dropWalDebris(walDir, unsealed);
  const kept = dropUncommittedSeals(blocks, unsealed);
  const maxWal = Math.max(0, ...segments, ...kept.map((b) => b.meta.walSeg ?? 0));
  const maxBlockSeq = Math.max(0, ...kept.map((b) => Number(b.meta.name.slice(b.meta.name.lastIndexOf('-') + 1)) || 0));
  return { blocks: kept, segments, nextSeg: maxWal + 1, maxBlockSeq, quarantined };
}

/** Step 2: an input of a merge whose merged block exists is deleted (the merge committed). */
function finishMerges(blocks: Block[]): Block[] {
  const byName = new Map(blocks.map((b) => [b.meta.name, b]));
  const replaced = new Set(blocks.flatMap((b) => b.meta.replaces).filter((n) => byName.has(n)));
  for (const n of replaced) deleteBlockFiles(byName.get(n)!);
  return blocks.filter((b) => !replaced.has(b.meta.name));
}

/** Step 3: a seal marker means the seal committed: its segment, summary and marker go. */
function finishSeals(walDir: string): void {
  if (!existsSync(walDir)) return;
  for (const seq of Wal.markers(walDir)) {
    rmSync(Wal.segmentPath(walDir, seq), { force: true });
    rmSync(Wal.summaryPath(walDir, seq), { force: true });
    rmSync(Wal.markerPath(walDir, seq), { force: true });
  }
}

/** Half-written summaries, and summaries of segments that are gone. */
function dropWalDebris(walDir: string, unsealed: Set<number>): void {
  if (!existsSync(walDir)) return;
  for (const n of readdirSync(walDir)) {
    const seq = Number(n.split('.')[0]);
    if (n.endsWith('.tmp') || (n.endsWith('.summary.json') && !unsealed.has(seq)))
      rmSync(join(walDir, n), { force: true });
  }
}

/** Step 4: a sealed block whose segment is still there unmarked never committed; the segment is replayed instead. */
function dropUncommittedSeals(blocks: Block[], unsealed: Set<number>): Block[] {
  const incomplete = blocks.filter(
    (b) => b.meta.replaces.length === 0 && b.meta.walSeg !== null && unsealed.has(b.meta.walSeg),
  );
  for (const b of incomplete) deleteBlockFiles(b);
  return blocks.filter((b) => !incomplete.includes(b));
}
