import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { SvcError } from '../errors/svc-error.js';
import { toSvcError } from './errors.js';

/**
 * Makes every body in this plugin's scope a raw Buffer, whatever its Content-Type (or none):
 * shippers send NDJSON as application/json, x-www-form-urlencoded, snappy protobuf with no
 * Content-Encoding, ... and each adapter decodes its own bytes. Call inside the protocol plugin.
 */
export function useRawBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
}

/**
 * A protocol plugin's edge set-up: raw bodies (useRawBodies), and every error of its scope
 * answered in the protocol's own shape by `send`; an unexpected one is logged first, as `what`.
 * `refused` hears every error answered (the protocol's metrics: the one place they all pass).
 */
export function protocolEdge(
  app: FastifyInstance,
  opts: { maxBodyBytes: number; log?: Logger; what: string; refused?: (err: SvcError) => void },
  send: (reply: FastifyReply, err: SvcError, request: FastifyRequest) => FastifyReply,
): void {
  useRawBodies(app, opts.maxBodyBytes);
  app.setErrorHandler((err, request, reply) => {
    const e = toSvcError(err);
    opts.refused?.(e);
    if (e.kind === 'internal')
      opts.log?.error({ err, reqId: request.id, path: request.url.split('?')[0] }, `${opts.what} failed`);
    return send(reply, e, request);
  });
}

/** The request body as a Buffer (empty when the request had none). */
export function bodyOf(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** First value of a header that may repeat. */
export function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
