import type { FastifyInstance } from 'fastify';
import { API_VERSION, VERSION } from '../../version.js';

export async function versionRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/version', { config: { access: 'public' } }, async () => ({ name: 'svc', version: VERSION, api: API_VERSION }));
  app.get('/api/health', { config: { access: 'public' } }, async () => ({ status: 'ok' }));
}
