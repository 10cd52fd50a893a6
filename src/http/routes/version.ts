import type { FastifyInstance } from 'fastify';
import { API_VERSION, VERSION } from '../../version.js';

export async function versionRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/version', { config: { access: 'public' } }, async () => ({
    name: 'svc',
    version: VERSION,
    api: API_VERSION,
  }));
  // degraded with the reasons (docs/admin-api.md, "Health"), still 200: a node whose disk is full
  // or whose store is down still serves searches, and a load balancer must not take it out
  app.get('/api/health', { config: { access: 'public' } }, async () => {
    const problems = app.deps.health();
    const store = app.deps.cluster?.health();
    const degraded = problems.length > 0 || (store !== undefined && !store.available);
    return {
      status: degraded ? 'degraded' : 'ok',
      ...(problems.length > 0 ? { problems } : {}),
      ...(store ? { store } : {}),
    };
  });
}
