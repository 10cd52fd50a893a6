import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import { envIndexName, itemRoutes, nameSchema, parseInput } from './admin-input.js';

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
  const opts = { config: { access: 'admin' as const } };

  app.get('/api/admin/ingest-tokens', opts, async () => ({ ingestTokens: tokens().list() }));

  app.post('/api/admin/ingest-tokens', opts, async (request, reply) => {
    const created = await tokens().create(parseInput(createToken, request.body), principalOf(request).name);
    return reply.code(201).header('Cache-Control', 'no-store').send(created);
  });

  itemRoutes(app, '/api/admin/ingest-tokens', tokens);
}
