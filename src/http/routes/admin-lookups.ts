import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import { principalOf } from '../../http-kit/access.js';
import { sendError, toSvcError } from '../../http-kit/errors.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

const nameParams = z.object({ name: z.string().min(1).max(100) });
const readQuery = z
  .object({
    preview: z.enum(['1', 'true'], { errorMap: () => ({ message: 'must be 1 or true' }) }).optional(),
    rows: z.coerce
      .number({ invalid_type_error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(1000, 'must be at most 1000')
      .optional(),
  })
  .strict();

/** What a CSV upload may be labelled as: curl's `--data-binary` with `-H 'content-type: text/csv'`, a browser's file. */
const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];
const PREVIEW_ROWS = 100;

/**
 * /api/admin/lookups (docs/lookups.md): list; PUT a CSV as the table `name` (201 created, 200
 * replaced); GET it back as CSV, or its first rows as JSON with `?preview=1[&rows=N]`; DELETE.
 */
export async function adminLookupRoutes(app: FastifyInstance): Promise<void> {
  const lookups = () => app.deps.lookups;
  const maxBytes = app.deps.config.lookupMaxBytes;
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  // this plugin's scope only: elsewhere a CSV body is refused as an unknown type
  app.addContentTypeParser(CSV_TYPES, { parseAs: 'buffer', bodyLimit: maxBytes }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err, request, reply) => {
    const tooLarge = (err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
    const e = tooLarge
      ? new SvcError('body_too_large', `the CSV is larger than ${sizeText(maxBytes)} (SVC_LOOKUP_MAX_BYTES)`)
      : toSvcError(err);
    if (e.kind === 'internal')
      request.log.error({ err, reqId: request.id, path: request.url.split('?')[0] }, 'request failed');
    return sendError(reply, e, request);
  });

  api.get('/api/admin/lookups', { config, schema: { summary: 'list lookup tables', tags } }, async () => ({
    lookups: lookups().list(),
  }));

  const put = {
    summary: 'upload a CSV as the lookup table (201 created, 200 replaced)',
    tags,
    params: nameParams,
    consumes: CSV_TYPES,
    success: 201,
  };
  api.put('/api/admin/lookups/:name', { config, bodyLimit: maxBytes, schema: put }, async (request, reply) => {
    const { name } = request.params;
    // an empty body reaches here without the parser
    const body = request.body ?? Buffer.alloc(0);
    if (!Buffer.isBuffer(body))
      throw new SvcError(
        'unsupported_media_type',
        `send the table as CSV with Content-Type: text/csv (got ${request.headers['content-type'] ?? 'none'})`,
      );
    const r = await lookups().put(name, body, principalOf(request).name);
    return reply.code(r.created ? 201 : 200).send(r.lookup);
  });

  const get = {
    summary: 'a lookup table as CSV, or its first rows as JSON with preview',
    tags,
    params: nameParams,
    querystring: readQuery,
    produces: ['text/csv', 'application/json'],
  };
  api.get('/api/admin/lookups/:name', { config, schema: get }, async (request, reply) => {
    const { name } = request.params;
    const q = request.query;
    if (q.preview) return lookups().preview(name, q.rows ?? PREVIEW_ROWS);
    const { data } = await lookups().csv(name);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${name}.csv"`)
      .send(data);
  });

  const del = { summary: 'delete a lookup table', tags, params: nameParams, success: 204 };
  api.delete('/api/admin/lookups/:name', { config, schema: del }, async (request, reply) => {
    await lookups().delete(request.params.name);
    return reply.code(204).send();
  });
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
