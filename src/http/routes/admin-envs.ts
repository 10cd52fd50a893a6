import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { envIndexName, parseInput } from './admin-input.js';

const retentionDays = z
  .number({ invalid_type_error: 'must be a whole number of days' })
  .int('must be a whole number of days')
  .min(1, 'must be at least 1')
  .max(36500, 'must be at most 36500');

const createEnv = z.object({ name: envIndexName, retentionDays: retentionDays.optional() }).strict();
const updateEnv = z.object({ retentionDays: retentionDays.nullable().optional() }).strict();
const nameParams = z.object({ name: z.string().min(1).max(100) });

/** /api/admin/envs: list, create, get, update (retention days; null removes the override), delete. */
export async function adminEnvRoutes(app: FastifyInstance): Promise<void> {
  const envs = () => app.deps.auth.envs;
  const opts = { config: { access: 'admin' as const } };

  app.get('/api/admin/envs', opts, async () => ({ envs: envs().list() }));

  app.post('/api/admin/envs', opts, async (request, reply) =>
    reply.code(201).send(await envs().create(parseInput(createEnv, request.body))),
  );

  app.get('/api/admin/envs/:name', opts, async (request) => envs().get(parseInput(nameParams, request.params).name));

  app.patch('/api/admin/envs/:name', opts, async (request) =>
    envs().update(parseInput(nameParams, request.params).name, parseInput(updateEnv, request.body)),
  );

  app.delete('/api/admin/envs/:name', opts, async (request, reply) => {
    await envs().delete(parseInput(nameParams, request.params).name);
    return reply.code(204).send();
  });
}
