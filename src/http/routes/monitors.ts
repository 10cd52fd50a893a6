import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isAdmin } from '../../auth/rbac.js';
import { principalOf } from '../../http-kit/access.js';
import { idParams, nameSchema, parseInput } from './admin-input.js';
import { AI_ROWS_MAX } from '../../monitors/ai-condition.js';

const text = (max: number) =>
  z
    .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);
const duration = z
  .string({ invalid_type_error: 'must be a duration like 5m', required_error: 'is required' })
  .max(20, 'must be a duration like 5m');

const destination = z
  .object({
    webhook: text(2000),
    format: z.enum(['json', 'slack'], { errorMap: () => ({ message: 'want "json" or "slack"' }) }).default('json'),
  })
  .strict();

const fields = {
  name: nameSchema(200),
  query: text(10_000),
  env: text(200),
  index: text(200).optional(),
  every: duration,
  window: duration.optional(),
  condition: z
    .object(
      {
        threshold: text(200).optional(),
        ai: text(2000).optional(),
        maxRows: z
          .number({ invalid_type_error: 'must be a number' })
          .int()
          .min(1)
          .max(AI_ROWS_MAX, `must be at most ${AI_ROWS_MAX}`)
          .optional(),
      },
      { invalid_type_error: 'must be an object', required_error: 'is required' },
    )
    .strict()
    .refine(
      (c) => (c.threshold === undefined) !== (c.ai === undefined) && (c.maxRows === undefined || c.ai !== undefined),
      {
        message: 'want {"threshold": "count > 0"} or {"ai": "a sentence to judge", "maxRows": 50}',
      },
    )
    .transform((c) => (c.ai !== undefined ? { ai: c.ai, maxRows: c.maxRows } : { threshold: c.threshold! })),
  groupBy: z.array(text(200)).max(20, 'at most 20 fields').optional(),
  cooldown: duration.optional(),
  destinations: z.array(destination).max(10, 'at most 10 destinations').optional(),
  enabled: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
};

const createMonitor = z.object(fields).strict();
const patchMonitor = z.object(fields).partial().strict();

/**
 * /api/monitors (docs/decisions/0017-monitors.md): create, list, get, change, delete, enable/disable, run now. Any user
 * or Standard API key; a monitor belongs to whoever made it (admins see and change all) and runs
 * with its maker's access.
 */
export async function monitorRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'standard' as const } };
  const monitors = () => app.deps.monitors;
  const id = (request: FastifyRequest) => parseInput(idParams, request.params).id;

  // whether AI features are on, plainly (the UI hides or explains them); where the provider runs
  // is the deployment's business: an internal host name is for admins only
  app.get('/api/llm', opts, async (request) => {
    const { provider, ...status } = app.deps.llm.status();
    return isAdmin(principalOf(request)) ? { provider, ...status } : status;
  });
  app.get('/api/monitors', opts, async (request) => ({ monitors: monitors().list(principalOf(request)) }));
  app.post('/api/monitors', opts, async (request, reply) =>
    reply.code(201).send(await monitors().create(principalOf(request), parseInput(createMonitor, request.body))),
  );
  app.get('/api/monitors/:id', opts, async (request) => monitors().get(principalOf(request), id(request)));
  app.get('/api/monitors/:id/runs', opts, async (request) => ({
    runs: await monitors().history(principalOf(request), id(request)),
  }));
  // the editor's preview: what the monitor would find now, nothing stored or sent
  app.post('/api/monitors/preview', opts, async (request) =>
    monitors().preview(principalOf(request), parseInput(createMonitor, request.body)),
  );
  app.patch('/api/monitors/:id', opts, async (request) =>
    monitors().update(principalOf(request), id(request), parseInput(patchMonitor, request.body)),
  );
  app.post('/api/monitors/:id/enable', opts, async (request) =>
    monitors().update(principalOf(request), id(request), { enabled: true }),
  );
  app.post('/api/monitors/:id/disable', opts, async (request) =>
    monitors().update(principalOf(request), id(request), { enabled: false }),
  );
  app.post('/api/monitors/:id/run', opts, async (request) => monitors().runNow(principalOf(request), id(request)));
  app.delete('/api/monitors/:id', opts, async (request, reply) => {
    await monitors().delete(principalOf(request), id(request));
    return reply.code(204).send();
  });
}
