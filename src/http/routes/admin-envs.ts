import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { envIndexName } from './admin-input.js';

const retentionDays = z
  .number({ invalid_type_error: 'must be a whole number of days' })
  .int('must be a whole number of days')
  .min(1, 'must be at least 1')
  .max(36500, 'must be at most 36500');

/** A per-environment limit (docs/limits.md): a whole number from 1; 0 or less is refused, null in a PATCH removes it. */
const limit = (what: string) =>
  z
    .number({ invalid_type_error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1 (null removes the limit)')
    .max(1e12, 'must be at most 1e12')
    .describe(what);
const limits = {
  ingestEventsPerSec: limit('events per second this env may ingest, per node (burst: 1 s of it)'),
  ingestBytesPerSec: limit('body bytes per second (decompressed) this env may ingest, per node (burst: 1 s of it)'),
  maxSearchesPerUser: limit('searches one user or API key may run at once over this env, per node'),
};
const nullable = <T extends Record<string, z.ZodNumber>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.nullable().optional()])) as {
    [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>>;
  };
const optional = <T extends Record<string, z.ZodNumber>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const createEnv = z
  .object({ name: envIndexName, retentionDays: retentionDays.optional(), ...optional(limits) })
  .strict();
const updateEnv = z.object({ retentionDays: retentionDays.nullable().optional(), ...nullable(limits) }).strict();
const nameParams = z.object({ name: z.string().min(1).max(100) });

/** /api/admin/envs: list, create, get, update (retention days and limits; null removes one), delete. */
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
    summary: "change an environment's retention or limits (null: the default, no limit)",
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
