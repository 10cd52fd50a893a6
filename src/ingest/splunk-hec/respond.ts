import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';

/**
 * Splunk HEC answers: every body is `{"text", "code"}` with Splunk's own codes and statuses
 * (https://docs.splunk.com/Documentation/Splunk/latest/Data/TroubleshootHTTPEventCollector).
 */
export interface HecAnswer {
  status: number;
  text: string;
  code: number;
  extra?: Record<string, unknown>;
}

export const HEC_SUCCESS: HecAnswer = { status: 200, text: 'Success', code: 0 };
export const HEC_HEALTHY: HecAnswer = { status: 200, text: 'HEC is healthy', code: 17 };
export const HEC_UNHEALTHY_QUEUE: HecAnswer = { status: 503, text: 'HEC is unhealthy, queues are full', code: 18 };

export class HecError extends Error {
  constructor(readonly answer: HecAnswer) {
    super(answer.text);
  }
}

export function hecError(status: number, text: string, code: number, extra?: Record<string, unknown>): HecError {
  return new HecError({ status, text, code, extra });
}

/** Maps svc's error codes to HEC's. A full queue is 429 (spec) with HEC's "Server is busy". */
export function hecAnswerOf(err: SvcError): HecAnswer {
  switch (err.code) {
    case 'missing_credentials':
      return { status: 401, text: 'Token is required', code: 2 };
    case 'disabled_credentials':
      return { status: 403, text: 'Token disabled', code: 1 };
    case 'invalid_credentials':
    case 'expired_credentials':
    case 'insufficient_scope':
      return { status: 403, text: 'Invalid token', code: 4 };
    case 'unknown_environment':
    case 'access_denied':
    case 'reserved_name':
      return { status: 400, text: 'Incorrect index', code: 7, extra: { reason: err.message } };
    case 'queue_full':
    case 'rate_limited':
      return { status: 429, text: 'Server is busy', code: 9 };
    case 'storage_unavailable':
    case 'shutting_down':
      // Splunk answers "Server is busy" with 503 when its own indexer cannot take data
      return { status: 503, text: 'Server is busy', code: 9 };
    case 'body_too_large':
      return { status: 413, text: 'Content length is too large', code: 27 };
    case 'invalid_json':
    case 'invalid_input':
    case 'unsupported_media_type':
      return { status: 400, text: 'Invalid data format', code: 6, extra: { reason: err.message } };
    default:
      return { status: 500, text: 'Internal server error', code: 8 };
  }
}

export function sendHec(reply: FastifyReply, a: HecAnswer, retryAfterSecs?: number): FastifyReply {
  if (a.status === 401) reply.header('WWW-Authenticate', 'Splunk');
  if (retryAfterSecs !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterSecs))));
  return reply.code(a.status).type('application/json').send({ text: a.text, code: a.code, ...a.extra });
}
