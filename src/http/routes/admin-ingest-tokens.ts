import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { envIndexName, itemRoutes, nameSchema } from './admin-input.js';

const createToken = z
  .object({
    name: nameSchema(100),
    env: envIndexName,
    index: envIndexName.optional(),
  })
  .strict();

/** /api/admin/ingest-tokens: create (secret answered once), list, get, disable, enable, delete. */
export async function adminIngestTokenRoutes(app: FastifyInstance): Promise<void> {
  const tokens = () => app.deps.auth.ingestTokens;
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  api.get('/api/admin/ingest-tokens', { config, schema: { summary: 'list ingest tokens', tags } }, async () => ({
    ingestTokens: tokens().list(),
  }));

  const schema = {
    summary: 'create an ingest token (its secret is answered once)',
    tags,
    body: createToken,
    success: 201,
  };
  api.post('/api/admin/ingest-tokens', { config, schema }, async (request, reply) => {
    const created = await tokens().create(request.body, principalOf(request).name);
    return reply.code(201).header('Cache-Control', 'no-store').send(created);
  });

  itemRoutes(app, '/api/admin/ingest-tokens', tokens, 'an ingest token');
}
