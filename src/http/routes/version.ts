import type { FastifyInstance } from 'fastify';
import { API_VERSION, VERSION } from '../../version.js';

export async function versionRoutes(app: FastifyInstance): Promise<void> {
  const tags = ['meta'];
  app.get('/api/version', { config: { access: 'public' }, schema: { summary: "svc's version", tags } }, async () => ({
    name: 'svc',
    version: VERSION,
    api: API_VERSION,
  }));
  // degraded with the reasons (docs/admin-api.md, "Health"), still 200: a node whose disk is full
  // or whose store is down still serves searches, and a load balancer must not take it out
  const health = { summary: 'ok, or degraded with the reasons (always 200)', tags };
  app.get('/api/health', { config: { access: 'public' }, schema: health }, async () => {
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
