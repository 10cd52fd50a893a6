import type { LogEvent } from './event.js';

/** Only storage makes an EncodedBatch (storage/wal/batch-encode.ts): this brand keeps anyone else from writing one. */
declare const ENCODED_BY_STORAGE: unique symbol;

/**
 * Events already in the write-ahead log's encoding, made off the event loop by a decode worker
 * (src/workers/decode-worker.ts calls storage/wal/batch-encode.ts). Opaque outside storage: ingest
 * only hands it to the Writer and may read how many events it holds. Structured-cloneable.
 */
export interface EncodedBatch {
  readonly kind: 'encoded';
  readonly count: number;
  readonly [ENCODED_BY_STORAGE]: true;
}

/** A batch as the Writer accepts it: LogEvents (the writer encodes them) or an EncodedBatch. */
export type WriteBatch = LogEvent[] | EncodedBatch;

/** Number of events in a batch. */
export function batchSize(b: WriteBatch): number {
  return Array.isArray(b) ? b.length : b.count;
}

export interface WriteOptions {
  /**
   * true (native ingest): wait for room when the writer queue is full.
   * false (compatibility endpoints): reject at once with SvcError('queue_full') carrying
   * retryAfterSecs, so the route can answer in its protocol's "retry later" shape.
   */
  wait: boolean;
  /**
   * Runs before the batch enters the queue (the env's ingest limits: ingest/common/env-limits.ts);
   * when it rejects, the batch is refused with its error as a full queue refuses one (a batch of
   * parts loses its files).
   */
  gate?: () => Promise<void>;
}

/**
 * The one door into storage for every ingest protocol.
 * Called concurrently by all ingest routes. Resolves once every event of the batch is in the
 * write-ahead log and fsynced (group commit), so an acknowledged event survives kill -9; it is
 * searchable on this node as soon as the promise resolves. A batch is accepted or rejected whole.
 * The caller gives up ownership of the batch (the writer may keep the array).
 */
export interface Writer {
  write(batch: WriteBatch, opts: WriteOptions): Promise<void>;
  /** Events currently waiting in the queue and its capacity, for metrics and backpressure tests. */
  queueDepth(): { queued: number; capacity: number };
}
