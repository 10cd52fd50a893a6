import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { envIndexName } from './admin-input.js';

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
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  api.get('/api/admin/envs', { config, schema: { summary: 'list environments', tags } }, async () => ({
    envs: envs().list(),
  }));

  const created = { summary: 'create an environment', tags, body: createEnv, success: 201, errors: [409] };
  api.post('/api/admin/envs', { config, schema: created }, async (request, reply) =>
    reply.code(201).send(await envs().create(request.body)),
  );

  const one = { summary: 'one environment', tags, params: nameParams };
  api.get('/api/admin/envs/:name', { config, schema: one }, async (request) => envs().get(request.params.name));

  const changed = {
    summary: "change an environment's retention (null: the default)",
    tags,
    params: nameParams,
    body: updateEnv,
  };
  api.patch('/api/admin/envs/:name', { config, schema: changed }, async (request) =>
    envs().update(request.params.name, request.body),
  );

  const deleted = {
    summary: 'delete an environment and its events',
    tags,
    params: nameParams,
    success: 204,
    errors: [409],
  };
  api.delete('/api/admin/envs/:name', { config, schema: deleted }, async (request, reply) => {
    await envs().delete(request.params.name);
    return reply.code(204).send();
  });
}
