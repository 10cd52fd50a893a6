import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../errors/svc-error.js';
import { principalOf } from '../../http-kit/access.js';
import type { IngestContext } from '../common/context.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { mediaType } from '../common/body.js';
import { ingestNative, type NativeQuery } from './ingest.js';
import { sendIngested, sendNativeError } from './respond.js';

const QUERY_KEYS = ['env', 'index', 'host', 'source', 'sourcetype'] as const;

/**
 * Reads the optional string parameters; a repeated one is refused (invalid_input) rather than
 * guessed, and so is an empty `env` or `index` (`?index=`), which names nothing.
 */
function nativeQuery(q: unknown): NativeQuery {
  const out: NativeQuery = {};
  const src = (q ?? {}) as Record<string, unknown>;
  for (const k of QUERY_KEYS) {
    const v = src[k];
    if (v === '' && (k === 'env' || k === 'index'))
      throw new SvcError('invalid_input', `query parameter "${k}" is empty: leave it out or name one`);
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string') throw new SvcError('invalid_input', `query parameter "${k}" must be given once`);
    out[k] = v;
  }
  return out;
}

/**
 * `POST /api/ingest?env=&index=&host=&source=&sourcetype=` — native ingest with an ingest token
 * (the auth hook authenticates it and sets request.principal). Takes the raw body whatever its
 * Content-Type: the parsers are replaced inside this plugin's own encapsulated scope only.
 * Answer: `{"ingested": n, "errors": m, "firstErrors": [{line, message}]}`.
 */
export async function nativeRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  protocolEdge(app, { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'native ingest' }, sendNativeError);
  app.post('/api/ingest', { config: { access: 'ingest' } }, async (request, reply) => {
    const answer = await ingestNative(ctx, principalOf(request), {
      query: nativeQuery(request.query),
      mediaType: mediaType(header(request.headers['content-type'])),
      contentEncoding: header(request.headers['content-encoding']),
      body: bodyOf(request.body),
    });
    return sendIngested(reply, answer);
  });
}
