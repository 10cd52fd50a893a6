import type { FastifyInstance } from 'fastify';
import { API_VERSION, VERSION } from '../../version.js';

export async function versionRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/version', { config: { access: 'public' } }, async () => ({ name: 'svc', version: VERSION, api: API_VERSION }));
  // with a shared store, whether it answers: a node that cannot reach it still takes and serves
  // events (sealed blocks wait on local disk), so it is degraded, not down
  app.get('/api/health', { config: { access: 'public' } }, async () => {
    const store = app.deps.cluster?.health();
    if (!store) return { status: 'ok' };
    return { status: store.available ? 'ok' : 'degraded', store };
  });
}
