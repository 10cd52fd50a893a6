import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

const idParams = z.object({ id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only') });

/**
 * /api/admin/nodes: the nodes sharing SVC_STORE (id, last sync and lag, published blocks and
 * bytes, cache use, retired or not), and retiring one. Without a store svc runs alone: the list
 * is empty and there is nothing to retire.
 */
export async function adminNodeRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  api.get('/api/admin/nodes', { config, schema: { summary: 'the nodes sharing SVC_STORE', tags } }, async () => {
    const cluster = app.deps.cluster;
    return {
      store: cluster ? (app.deps.config.store?.kind ?? null) : null,
      nodes: cluster ? await cluster.nodes() : [],
    };
  });

  const retire = { summary: 'retire a node that is gone', tags, params: idParams, errors: [409] };
  api.post('/api/admin/nodes/:id/retire', { config, schema: retire }, async (request) => {
    const { id } = request.params;
    const cluster = app.deps.cluster;
    if (!cluster) throw new SvcError('not_found', `no node "${id}": svc runs alone (SVC_STORE is not set)`);
    return { node: await cluster.retire(id) };
  });
}
