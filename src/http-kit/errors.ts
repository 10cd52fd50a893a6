import type { FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import type { ErrorKind } from '../errors/codes.js';

/** The one place that knows which HTTP status each kind of error is. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  too_many_requests: 429,
  unavailable: 503,
  internal: 500,
};

export interface ErrorBody {
  error: { code: string; message: string; requestId?: string } & Record<string, unknown>;
}

/** Turns anything thrown into an SvcError: Fastify's own errors (bad JSON, body limit) included. */
export function toSvcError(err: unknown): SvcError {
  if (isSvcError(err)) return err;
  const e = err as { code?: string; statusCode?: number; message?: string; validation?: unknown };
  if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e?.statusCode === 413) {
    return new SvcError('body_too_large', 'request body is larger than the limit');
  }
  if (e?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e?.statusCode === 415) {
    return new SvcError('unsupported_media_type', e.message ?? 'unsupported content type');
  }
  if (
    e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    e instanceof SyntaxError ||
    e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
  ) {
    return new SvcError('invalid_json', `cannot parse JSON body: ${e?.message ?? 'malformed'}`);
  }
  if (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new SvcError('invalid_input', e.message ?? 'bad request');
  }
  return new SvcError('internal', 'internal error', { cause: err });
}

export function errorBody(err: SvcError, requestId?: string): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details) Object.assign(body.error, err.details);
  if (requestId && err.kind === 'internal') body.error.requestId = requestId;
  return body;
}

/** svc's own challenge on a 401; protocols whose clients expect another pass theirs to setErrorStatus. */
const SVC_CHALLENGE = 'Bearer realm="svc"';

/** Sets Retry-After to `secs` rounded up to whole seconds, at least 1. */
export function setRetryAfter(reply: FastifyReply, secs: number): void {
  reply.header('Retry-After', String(Math.max(1, Math.ceil(secs))));
}

/**
 * Sets the status of an SvcError's answer and the headers that go with it: `WWW-Authenticate` on a
 * 401 (`challenge`, svc's own by default) and `Retry-After` when the error says when to retry.
 * Every edge answers errors through it: sendError below for svc's JSON, and each protocol's
 * respond.ts, which writes its own body. A protocol whose clients expect another status than the
 * kind's (Splunk HEC) passes `status`. Returns the status set.
 */
export function setErrorStatus(
  reply: FastifyReply,
  err: SvcError,
  opts: { status?: number; challenge?: string } = {},
): number {
  const status = opts.status ?? STATUS_BY_KIND[err.kind];
  if (status === 401) reply.header('WWW-Authenticate', opts.challenge ?? SVC_CHALLENGE);
  if (err.retryAfterSecs !== undefined) setRetryAfter(reply, err.retryAfterSecs);
  reply.code(status);
  return status;
}

/** Sends an SvcError in svc's JSON shape with the mapped status and headers. */
export function sendError(reply: FastifyReply, err: SvcError, request?: FastifyRequest): FastifyReply {
  setErrorStatus(reply, err);
  return reply.type('application/json').send(errorBody(err, request?.id));
}
