import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { allowSchema, idParams, itemRoutes, nameSchema } from './admin-input.js';

const password = z
  .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);
const role = z.enum(['admin', 'user'], { errorMap: () => ({ message: 'want "admin" or "user"' }) });
const username = nameSchema(100).refine(
  (s) => /^[A-Za-z0-9][A-Za-z0-9_.@-]*$/.test(s),
  'want letters, digits, "_", ".", "@" or "-"',
);

const email = z
  .string({ invalid_type_error: 'must be a string' })
  .trim()
  .max(320, 'must be at most 320 characters')
  .email('must be an email address');

const createUser = z
  .object({ username, password, role: role.optional(), allow: allowSchema.optional(), email: email.optional() })
  .strict();
const updateUser = z
  .object({
    password: password.optional(),
    role: role.optional(),
    allow: allowSchema.optional(),
    email: email.nullable().optional(),
  })
  .strict();

/** /api/admin/users: list, create, get, update (password, role, allowlists, email), disable, enable, delete. */
export async function adminUserRoutes(app: FastifyInstance): Promise<void> {
  const users = () => app.deps.auth.users;
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  api.get('/api/admin/users', { config, schema: { summary: 'list users', tags } }, async () => ({
    users: users().list(),
  }));

  const created = { summary: 'create a user', tags, body: createUser, success: 201, errors: [409] };
  api.post('/api/admin/users', { config, schema: created }, async (request, reply) =>
    reply.code(201).send(await users().create(request.body)),
  );

  const changed = {
    summary: "change a user's password, role, allowlists or email",
    tags,
    params: idParams,
    body: updateUser,
  };
  api.patch('/api/admin/users/:id', { config, schema: changed }, async (request) =>
    users().update(request.params.id, request.body),
  );

  itemRoutes(app, '/api/admin/users', users, 'a user');
}
