import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { setErrorStatus } from '../../http-kit/errors.js';

/**
 * Splunk HEC's edge: every body is `{"text", "code"}` with Splunk's own codes and statuses
 * (https://docs.splunk.com/Documentation/Splunk/latest/Data/TroubleshootHTTPEventCollector).
 */
export interface HecAnswer {
  status: number;
  text: string;
  code: number;
  extra?: Record<string, unknown>;
}

const HEC_SUCCESS: HecAnswer = { status: 200, text: 'Success', code: 0 };
const HEC_HEALTHY: HecAnswer = { status: 200, text: 'HEC is healthy', code: 17 };
const HEC_UNHEALTHY_QUEUE: HecAnswer = { status: 503, text: 'HEC is unhealthy, queues are full', code: 18 };

/** Maps svc's error codes to HEC's. A full queue is 429 (spec) with HEC's "Server is busy". */
export function hecAnswerOf(err: SvcError): HecAnswer {
  // refused by a HEC decoder or route with Splunk's own code (hec-error.ts)
  if (typeof err.details?.hecCode === 'number') {
    const { hecCode, ...extra } = err.details;
    return { status: 400, text: err.message, code: hecCode, extra };
  }
  // an index name the one name rule refuses (control/names.ts) is Splunk's "Incorrect index"
  if (err.code === 'invalid_input' && err.details?.field === 'index')
    return { status: 400, text: 'Incorrect index', code: 7, extra: { reason: err.message } };
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

function send(reply: FastifyReply, a: HecAnswer): FastifyReply {
  return reply.type('application/json').send({ text: a.text, code: a.code, ...a.extra });
}

/** Sends an SvcError as HEC's answer, with Splunk's status for it. */
export function sendHecError(reply: FastifyReply, err: SvcError): FastifyReply {
  const a = hecAnswerOf(err);
  setErrorStatus(reply, err, { status: a.status, challenge: 'Splunk' });
  return send(reply, a);
}

/** The answer to events stored (fsynced); `ackId` when the request named a channel (acks.ts). */
export function sendHecSuccess(reply: FastifyReply, ackId?: number): FastifyReply {
  return send(reply.code(HEC_SUCCESS.status), ackId === undefined ? HEC_SUCCESS : { ...HEC_SUCCESS, extra: { ackId } });
}

/** The health answer: unhealthy while the writer queue is full. */
export function sendHecHealth(reply: FastifyReply, queueFull: boolean): FastifyReply {
  const a = queueFull ? HEC_UNHEALTHY_QUEUE : HEC_HEALTHY;
  return send(reply.code(a.status), a);
}
