import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { setErrorStatus } from '../../http-kit/errors.js';

/** Loki's edge: success is 204 with no body; errors are plain text like Loki's own. */

export function sendPushed(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** An SvcError as Loki answers one: `<code>: <message>`, 429 with Retry-After when the queue is full. */
export function sendLokiError(reply: FastifyReply, err: SvcError): FastifyReply {
  setErrorStatus(reply, err);
  return reply.type('text/plain; charset=utf-8').send(`${err.code}: ${err.message}\n`);
}
