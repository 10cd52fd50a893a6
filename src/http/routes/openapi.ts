import type { FastifyInstance } from 'fastify';
import { openApiDocument, type RegisteredRoute } from '../schema/openapi.js';

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document of every route (schema/openapi.ts). Public like
 * /api/version: it says what the API takes, never what is stored, and tools read it before they
 * have a key. Made once, on the first request, when every route is registered.
 */
export async function openApiRoutes(app: FastifyInstance, opts: { routes: RegisteredRoute[] }): Promise<void> {
  let doc: Record<string, unknown> | undefined;
  app.get(
    '/api/openapi.json',
    { config: { access: 'public' }, schema: { summary: 'this document', tags: ['meta'] } },
    async () => (doc ??= openApiDocument(opts.routes)),
  );
}
