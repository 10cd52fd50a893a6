import type { FastifyInstance } from 'fastify';

/**
 * Makes every body in this plugin's scope a raw Buffer, whatever its Content-Type (or none):
 * shippers send NDJSON as application/json, x-www-form-urlencoded, snappy protobuf with no
 * Content-Encoding, ... and each adapter decodes its own bytes. Call inside the protocol plugin.
 */
export function useRawBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
}

/** The request body as a Buffer (empty when the request had none). */
export function bodyOf(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** First value of a header that may repeat. */
export function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
