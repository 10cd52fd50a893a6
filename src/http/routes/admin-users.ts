import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';
import { allowSchema, idParams, itemRoutes, nameSchema, parseInput } from './admin-input.js';

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
  const opts = { config: { access: 'admin' as const } };

  app.get('/api/admin/users', opts, async () => ({ users: users().list() }));

  app.post('/api/admin/users', opts, async (request, reply) =>
    reply.code(201).send(await users().create(parseInput(createUser, request.body))),
  );

  app.patch('/api/admin/users/:id', opts, async (request) =>
    users().update(parseInput(idParams, request.params).id, parseInput(updateUser, request.body)),
  );

  itemRoutes(app, '/api/admin/users', users);
}
