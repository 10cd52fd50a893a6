import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../auth-hook.js';
import { searchParams, withCancel } from './search-params.js';

/**
 * Search routes (DESIGN 6): GET|POST /api/search, GET /api/histogram (optionally stacked by a
 * field: `by`, `series`), GET /api/fields. Standard API scope or a session; RBAC narrowing happens
 * in the SearchService.
 */
export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'standard' as const } };
  const search = async (request: FastifyRequest, reply: FastifyReply) => app.deps.search.search(principalOf(request), withCancel(searchParams(request), reply));
  app.get('/api/search', opts, search);
  app.post('/api/search', opts, search);
  app.get('/api/histogram', opts, async (request, reply) => app.deps.search.histogram(principalOf(request), withCancel(searchParams(request), reply)));
  app.get('/api/fields', opts, async (request, reply) => app.deps.search.fields(principalOf(request), withCancel(searchParams(request), reply)));
}
