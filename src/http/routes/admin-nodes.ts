import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import { parseInput } from './admin-input.js';

const idParams = z.object({ id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only') });

/**
 * /api/admin/nodes: the nodes sharing SVC_STORE (id, last sync and lag, published blocks and
 * bytes, cache use, retired or not), and retiring one. Without a store svc runs alone: the list
 * is empty and there is nothing to retire.
 */
export async function adminNodeRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'admin' as const } };

  app.get('/api/admin/nodes', opts, async () => {
    const cluster = app.deps.cluster;
    return {
      store: cluster ? (app.deps.config.store?.kind ?? null) : null,
      nodes: cluster ? await cluster.nodes() : [],
    };
  });

  app.post('/api/admin/nodes/:id/retire', opts, async (request) => {
    const { id } = parseInput(idParams, request.params);
    const cluster = app.deps.cluster;
    if (!cluster) throw new SvcError('not_found', `no node "${id}": svc runs alone (SVC_STORE is not set)`);
    return { node: await cluster.retire(id) };
  });
}
