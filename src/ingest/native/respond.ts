import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { sendError } from '../../http-kit/errors.js';
import type { IngestAnswer } from './ingest.js';

/**
 * Native ingest's edge. Success: `{"ingested": n, "errors": m, "firstErrors": [{line, message}]}`.
 * Errors: svc's own JSON shape and statuses (http-kit/errors.ts), as every svc API answers them.
 */

export function sendIngested(reply: FastifyReply, a: IngestAnswer): FastifyReply {
  return reply.send(a);
}

export function sendNativeError(reply: FastifyReply, err: SvcError, request: FastifyRequest): FastifyReply {
  return sendError(reply, err, request);
}
