import type { WriteBatch } from '../storage/wal/batch-encode.js';

export interface WriteOptions {
  /**
   * true (native ingest): wait for room when the writer queue is full.
   * false (compatibility endpoints): reject at once with SvcError('queue_full') carrying
   * retryAfterSecs, so the route can answer 429 in its protocol's shape.
   */
  wait: boolean;
}

/**
 * The one door into storage for every ingest protocol.
 * Called concurrently by all ingest routes. Resolves once every event of the batch is in the
 * write-ahead log and fsynced (group commit), so an acknowledged event survives kill -9; it is
 * searchable on this node as soon as the promise resolves. A batch is accepted or rejected whole.
 * A batch is LogEvents, or events a decode worker already encoded (storage/wal/batch-encode.ts).
 * The caller gives up ownership of the batch (the writer may keep the array).
 */
export interface Writer {
  write(batch: WriteBatch, opts: WriteOptions): Promise<void>;
  /** Events currently waiting in the queue and its capacity, for metrics and backpressure tests. */
  queueDepth(): { queued: number; capacity: number };
}
