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
  if (e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || e instanceof SyntaxError || e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
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

/** Sends an SvcError in svc's JSON shape with the mapped status and headers. */
export function sendError(reply: FastifyReply, err: SvcError, request?: FastifyRequest): FastifyReply {
  const status = STATUS_BY_KIND[err.kind];
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer realm="svc"');
  if (err.retryAfterSecs !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSecs))));
  return reply.code(status).type('application/json').send(errorBody(err, request?.id));
}
