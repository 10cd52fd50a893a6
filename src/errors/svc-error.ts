import { ERROR_CODES, type ErrorCode, type ErrorKind } from './codes.js';

/** The one error type domain code throws. Messages are lowercase and quote the bad value. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  /** Extra machine-readable detail, e.g. `{ field: "name" }` or `{ position: 12, token: "|" }`. */
  readonly details?: Record<string, unknown>;
  /** Seconds a client should wait before retrying (queue_full, rate_limited). */
  readonly retryAfterSecs?: number;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: Record<string, unknown>; retryAfterSecs?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SvcError';
    this.code = code;
    this.details = opts.details;
    this.retryAfterSecs = opts.retryAfterSecs;
  }

  get kind(): ErrorKind {
    return ERROR_CODES[this.code];
  }
}

/** A broken invariant: a bug in svc, never the caller's fault. Surfaces as 500. */
export function bug(message: string): SvcError {
  return new SvcError('internal', `BUG: ${message}`);
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}
