import type { FastifyInstance } from 'fastify';

/** POST /api/admin/gc: runs the retention sweep now and answers what it deleted (whole blocks). */
export async function adminGcRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/api/admin/gc',
    { config: { access: 'admin' }, schema: { summary: 'run the retention sweep now', tags: ['admin'] } },
    async () => app.deps.storage.sweep(true),
  );
}
