import type { MergePolicy } from './blocks/merge-policy.js';

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
  mergePolicy: { smallEvents: 500_000, targetEvents: 1_000_000, minBlocks: 4, coldMs: 30_000 },
};
