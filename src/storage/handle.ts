import type { RetentionReport } from './retention.js';

/** Operations on the storage engine beyond Writer/EventStore: for the admin route, tests and benchmarks. */
export interface StorageHandle {
  /** Runs the retention sweep now (forced: POST /api/admin/gc); resolves with what it deleted. */
  sweep(forced?: boolean): Promise<RetentionReport>;
  /** Tests only (SVC_TEST_HOLD_WRITER=1): lets the held writer drain its queue. */
  releaseWriter(): void;
  /** Seals everything acknowledged so far into blocks and waits for background work. */
  flush(): Promise<void>;
  stats(): { blocks: number; blockEvents: number; liveSegments: number; liveEvents: number; blockBytes: number };
}
