import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import type { IngestContext } from '../common/context.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { described, useZodSchemas } from '../../http-kit/schema/compiler.js';
import { onceString } from '../../http-kit/schema/params.js';
import { mediaType } from '../common/body.js';
import { ingestNative, type NativeQuery } from './ingest.js';
import { sendIngested, sendNativeError } from './respond.js';

/** A target named by the request: an empty one (`?index=`) names nothing and is refused, not ignored. */
const target = (what: string) =>
  z
    .string({ invalid_type_error: 'must be given once' })
    .min(1, 'is empty: leave it out or name one')
    .optional()
    .describe(what);

/**
 * The optional parameters; a repeated one is refused (invalid_input) rather than guessed. Unknown
 * ones are ignored: shippers add their own.
 */
const nativeQuery = z.object({
  env: target("environment to write to; must match the token's pin when it has one"),
  index: target('index to write to (default: the token’s, else "main")'),
  host: onceString('host of events that have none'),
  source: onceString('source of events that have none'),
  sourcetype: onceString('sourcetype of events that have none'),
}) satisfies z.ZodType<NativeQuery, z.ZodTypeDef, unknown>;

/** Read as sent (the first of a repeated one); an unknown encoding is refused by the decoder. */
const nativeHeaders = described(
  z.object({
    'content-type': z.string().optional().describe('application/x-ndjson, application/json or text/plain'),
    'content-encoding': z.string().optional().describe('gzip, x-gzip, deflate, br or identity'),
  }),
);

/**
 * `POST /api/ingest?env=&index=&host=&source=&sourcetype=` — native ingest with an ingest token
 * (the auth hook authenticates it and sets request.principal). Takes the raw body whatever its
 * Content-Type: the parsers are replaced inside this plugin's own encapsulated scope only.
 * Answer: `{"ingested": n, "errors": m, "firstErrors": [{line, message}]}`.
 */
export async function nativeRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  protocolEdge(
    app,
    { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'native ingest', refused: ctx.meter?.refused },
    sendNativeError,
  );
  // the route schemas are zod (http-kit/schema/compiler.ts): set here too, so the plugin stands alone
  useZodSchemas(app);
  const schema = {
    summary: 'push events: NDJSON, a JSON array, or plain text lines',
    tags: ['ingest'],
    querystring: nativeQuery,
    headers: nativeHeaders,
    consumes: ['application/x-ndjson', 'application/json', 'text/plain'],
    errors: [429, 503],
  };
  app.post('/api/ingest', { config: { access: 'ingest' }, schema }, async (request, reply) => {
    const answer = await ingestNative(ctx, principalOf(request), {
      query: request.query as NativeQuery,
      mediaType: mediaType(header(request.headers['content-type'])),
      contentEncoding: header(request.headers['content-encoding']),
      body: bodyOf(request.body),
    });
    return sendIngested(reply, answer);
  });
}
