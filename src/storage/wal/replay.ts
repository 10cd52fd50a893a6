import type { Duck } from '../duck.js';
import { LiveSegment } from './live-segment.js';
import { loadSummary } from './segment-summary.js';
import { Wal } from './wal.js';

/**
 * WAL replay, the last step of start-up recovery (recovery.ts): every unsealed segment becomes a live segment again (searchable at once),
 * its accounting from its summary file or a DuckDB pass. `take` receives each one in order as
 * soon as it is ready, so the engine can queue its seal while the next one loads.
 */
export async function replayWal(duck: Duck, walDir: string, segments: number[], take: (seg: LiveSegment) => void): Promise<void> {
  for (const seq of segments) {
    const seg = new LiveSegment(seq, Wal.segmentPath(walDir, seq));
    for (const p of await loadSummary(duck, walDir, seq)) seg.addPartition(p);
    take(seg);
  }
}
