import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../http-kit/access.js';
import { searchParams, withCancel } from './search-params.js';

/**
 * Search routes (docs/decisions/0013-search-api-and-answers.md): GET|POST /api/search, GET|POST
 * /api/histogram (optionally stacked by a field: `by`, `series`), GET|POST /api/fields; POST takes the
 * parameters as a JSON body. Standard API scope or a session; RBAC narrowing happens in the SearchService.
 */
export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'standard' as const } };
  const search = async (request: FastifyRequest, reply: FastifyReply) =>
    app.deps.search.search(principalOf(request), withCancel(searchParams(request), reply));
  app.get('/api/search', opts, search);
  app.post('/api/search', opts, search);
  const histogram = async (request: FastifyRequest, reply: FastifyReply) =>
    app.deps.search.histogram(principalOf(request), withCancel(searchParams(request), reply));
  const fields = async (request: FastifyRequest, reply: FastifyReply) =>
    app.deps.search.fields(principalOf(request), withCancel(searchParams(request), reply));
  // POST takes the same parameters as a JSON body: a long query does not fit in a URL (431)
  for (const method of ['GET', 'POST'] as const) {
    app.route({ method, url: '/api/histogram', ...opts, handler: histogram });
    app.route({ method, url: '/api/fields', ...opts, handler: fields });
  }
}
