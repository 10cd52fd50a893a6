/**
 * How the S3 store reads an S3 client's failures and retries them. The SDK's own retries are off
 * (maxAttempts 1): an upload's file stream must be reopened for each attempt, and a conditional put
 * must look at the object between attempts (s3-store.ts), so one loop here decides for every call.
 */

/** How hard to try before answering StoreUnavailable. */
export interface RetryPolicy {
  /** Tries per call, the first included. */
  attempts: number;
  /** The n-th retry waits between half and all of min(baseDelayMs * 2^(n-1), maxDelayMs). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A connection not made within this long fails (and is retried). */
  connectTimeoutMs: number;
  /** A request whose socket stays silent this long fails (and is retried): a hung server is not a hang. */
  idleTimeoutMs: number;
  /** Told about each failure that will be retried (for a log line); the attempt that failed, from 1. */
  onRetry?: (attempt: number, error: unknown) => void;
}

/** 8 tries over ~8-16 s of backoff: a gateway restart or a short network cut passes unnoticed. */
export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 8,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  connectTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
};

/**
 * What a failure means:
 * - `absent`: the key (404) is not there;
 * - `precondition`: a conditional write's condition did not hold (412): nothing was written;
 * - `transient`: throttling, a 5xx, a timeout or a network error: retry. It includes how some
 *   servers report a conditional write that lost a race other than with a 412: Ceph 16 answers
 *   500 (RADOS ECANCELED; never applied in our measurements), AWS 409 ConditionalRequestConflict
 *   (another conditional write in progress). A conditional put looks at the object before retrying.
 * - `fatal`: the server refused for good (credentials, permissions, no such bucket, a bad request).
 */
export type FailureKind = 'absent' | 'precondition' | 'transient' | 'fatal';

// Statuses of the S3 server's answers, read here (svc's own statuses are set in http/ only).
const NOT_FOUND = 404;
const CONFLICT = 409;
const PRECONDITION_FAILED = 412;
const TOO_MANY_REQUESTS = 429;
const FIRST_SERVER_ERROR = 500;

const THROTTLING = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'ServiceUnavailable',
]);
/** S3 answers these with a 4xx, yet they pass: a slow socket, a clock the SDK corrects on the next try. */
const TRANSIENT_CODES = new Set(['RequestTimeout', 'RequestTimeTooSkewed', 'TimeoutError']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

interface SdkError {
  name?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

export function classify(e: unknown): FailureKind {
  const err = (e ?? {}) as SdkError;
  const status = err.$metadata?.httpStatusCode;
  const name = err.Code ?? err.name ?? '';
  if (status === PRECONDITION_FAILED || name === 'PreconditionFailed') return 'precondition';
  if (status === NOT_FOUND || name === 'NoSuchKey' || name === 'NotFound')
    return name === 'NoSuchBucket' ? 'fatal' : 'absent';
  if (status === CONFLICT && name === 'ConditionalRequestConflict') return 'transient';
  if (THROTTLING.has(name) || TRANSIENT_CODES.has(name) || status === TOO_MANY_REQUESTS) return 'transient';
  if (status !== undefined && status >= FIRST_SERVER_ERROR) return 'transient';
  if (NETWORK_CODES.has(err.code ?? '') || name === 'TimeoutError') return 'transient';
  return 'fatal';
}

/** The wait before retry number `retry` (from 1): exponential, capped, half of it random. */
export function backoffMs(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A short description of a failure for StoreUnavailable's message: the server's code or the network error. */
export function describeFailure(e: unknown): string {
  const err = (e ?? {}) as SdkError & { message?: string };
  const status = err.$metadata?.httpStatusCode;
  const name = err.Code ?? err.name;
  const what = err.code && err.code !== name ? `${name} ${err.code}` : name;
  return `${what ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${err.message ?? String(e)}`;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or runs out of tries; then rethrows the last
 * failure (the caller turns it into StoreConflict or StoreUnavailable). `attempt` is called afresh
 * each time (an upload reopens its file).
 */
export async function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (n >= policy.attempts || classify(e) !== 'transient') throw e;
      policy.onRetry?.(n, e);
      await sleep(backoffMs(policy, n));
    }
  }
}
