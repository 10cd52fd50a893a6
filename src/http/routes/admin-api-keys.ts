import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_EXPIRY_DAYS } from '../../auth/api-keys.js';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { allowSchema, itemRoutes, nameSchema, scopeSchema } from './admin-input.js';

const createKey = z
  .object({
    name: nameSchema(100),
    purpose: z
      .string({ invalid_type_error: 'must be a string' })
      .max(1000, 'must be at most 1000 characters')
      .optional(),
    scopes: z
      .array(scopeSchema, { invalid_type_error: 'must be a list of scopes', required_error: 'is required' })
      .min(1, 'needs at least one scope'),
    expiresInDays: z
      .number({ invalid_type_error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(MAX_EXPIRY_DAYS, `must be at most ${MAX_EXPIRY_DAYS}`)
      .nullable()
      .optional(),
    allow: allowSchema.optional(),
  })
  .strict();

/** /api/admin/api-keys: create (secret answered once), list, get, disable, enable, delete. */
export async function adminApiKeyRoutes(app: FastifyInstance): Promise<void> {
  const keys = () => app.deps.auth.apiKeys;
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  api.get('/api/admin/api-keys', { config, schema: { summary: 'list API keys', tags } }, async () => ({
    apiKeys: keys().list(),
  }));

  const schema = { summary: 'create an API key (its secret is answered once)', tags, body: createKey, success: 201 };
  api.post('/api/admin/api-keys', { config, schema }, async (request, reply) => {
    const created = await keys().create(request.body, principalOf(request));
    return reply.code(201).header('Cache-Control', 'no-store').send(created);
  });

  itemRoutes(app, '/api/admin/api-keys', keys, 'an API key');
}
