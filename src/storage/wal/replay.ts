import type { Logger } from 'pino';
import type { Duck } from '../duck.js';
import { LiveSegment, type LivePartition } from './live-segment.js';
import { readSummary, summarizeSegment } from './segment-summary.js';
import { countLines, repairSegment } from './segment-repair.js';
import { Wal } from './wal.js';

/**
 * WAL replay, the last step of start-up recovery (recovery.ts): every unsealed segment becomes a live segment again (searchable at once),
 * its accounting from its summary file or a DuckDB pass. `take` receives each one in order as
 * soon as it is ready, so the engine can queue its seal while the next one loads. A segment
 * DuckDB cannot read (a line over its object limit, written before the store guarded its lines)
 * is rewritten first (segment-repair.ts): a start never fails on one.
 */
export async function replayWal(
  duck: Duck,
  walDir: string,
  segments: number[],
  o: { maxEventBytes: number; log: Logger },
  take: (seg: LiveSegment) => void,
): Promise<void> {
  for (const seq of segments) {
    const seg = new LiveSegment(seq, Wal.segmentPath(walDir, seq));
    for (const p of await accounting(duck, walDir, seq, o)) seg.addPartition(p);
    take(seg);
  }
}

/**
 * The segment's summary file, else a DuckDB pass over it; the pass must have read every complete
 * line (DuckDB skips one it cannot read, e.g. a time its BIGINT column cannot hold), else the
 * segment is rewritten and the rewrite's accounting taken.
 */
async function accounting(
  duck: Duck,
  walDir: string,
  seq: number,
  o: { maxEventBytes: number; log: Logger },
): Promise<LivePartition[]> {
  const stored = readSummary(walDir, seq);
  if (stored) return stored;
  let reason: unknown;
  try {
    const parts = await duck.with((c) => summarizeSegment(c, Wal.segmentPath(walDir, seq)));
    const read = parts.reduce((n, p) => n + p.count, 0);
    const lines = await countLines(Wal.segmentPath(walDir, seq));
    if (read >= lines) return parts;
    reason = `DuckDB read ${read} of its ${lines} lines`;
  } catch (err) {
    reason = err;
  }
  o.log.warn({ err: reason, seq }, 'cannot read all of a WAL segment at start; rewriting it');
  const r = await repairSegment(walDir, seq, o.maxEventBytes);
  return [...r.seg.partitions.values()];
}
