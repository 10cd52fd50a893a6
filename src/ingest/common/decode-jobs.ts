import { runDecodeJob } from '../native/decode-job.js';
import { decodeBulkJob } from '../elasticsearch/decode-bulk.js';

/**
 * The work a decode worker can do, by kind: pure functions from a job (plain, cloneable data with
 * the request `body`) to a result holding an EncodedBatch (`batch`). Both run unchanged on the event
 * loop for small bodies.
 */
export const DECODE_JOBS = {
  native: runDecodeJob,
  es_bulk: decodeBulkJob,
} as const;

export type DecodeKind = keyof typeof DECODE_JOBS;
export type JobOf<K extends DecodeKind> = Parameters<(typeof DECODE_JOBS)[K]>[0];
export type ResultOf<K extends DecodeKind> = ReturnType<(typeof DECODE_JOBS)[K]>;

/** Bodies from this size on go to a decode worker when there is one: below it the hop costs more than it saves. */
export const OFFLOAD_MIN_BYTES = 64 * 1024;
