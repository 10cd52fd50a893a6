import type { MergePolicy } from './blocks/merge-policy.js';
import { GRANULE_ROWS } from './blocks/token-filters.js';

/** The storage engine's knobs; the defaults suit production, tests and benchmarks turn them. */
export interface StorageTuning {
  /** A WAL segment is closed and sealed once it holds this many bytes... */
  segmentBytes: number;
  /** ...or once it is this old (ms) and not empty. */
  segmentAgeMs: number;
  /** The writer waits while this many closed segments are still unsealed (bounds WAL, restart and live scans). */
  maxUnsealedSegments: number;
  /** Run background merges after seals. */
  merge: boolean;
  mergePolicy: MergePolicy;
}

export const DEFAULT_TUNING: StorageTuning = {
  segmentBytes: 64 * 1024 * 1024,
  segmentAgeMs: 5_000,
  maxUnsealedSegments: 6,
  merge: true,
  mergePolicy: {
    smallEvents: GRANULE_ROWS,
    partEvents: 8_192,
    settledEvents: 500_000,
    settledMs: 10 * 60_000,
    hotMaxBlocks: 32,
    targetEvents: 1_000_000,
    minBlocks: 4,
    coldMs: 30_000,
  },
};
