import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isAdmin } from '../../auth/rbac.js';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { nameSchema, standardRouteDocs } from './admin-input.js';
import { AI_ROWS_MAX } from '../../monitors/ai-condition.js';

/** Any trimmed, non-empty text of at most `max` characters (a name, a query, a condition). */
const text = nameSchema;
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
  const api = app.withTypeProvider<ZodTypes>();
  const monitors = () => app.deps.monitors;
  const { doc, item } = standardRouteDocs('monitors');

  // whether AI features are on, plainly (the UI hides or explains them); where the provider runs
  // is the deployment's business: an internal host name is for admins only
  api.get('/api/llm', doc('whether AI features are on (LLM provider status)'), async (request) => {
    const { provider, ...status } = app.deps.llm.status();
    return isAdmin(principalOf(request)) ? { provider, ...status } : status;
  });
  api.get('/api/monitors', doc('list the monitors the caller may see'), async (request) => ({
    monitors: monitors().list(principalOf(request)),
  }));
  api.post(
    '/api/monitors',
    doc('create a monitor', { body: createMonitor, success: 201, errors: [409] }),
    async (request, reply) => reply.code(201).send(await monitors().create(principalOf(request), request.body)),
  );
  api.get('/api/monitors/:id', item('one monitor'), async (request) =>
    monitors().get(principalOf(request), request.params.id),
  );
  api.get('/api/monitors/:id/runs', item("a monitor's recent runs"), async (request) => ({
    runs: await monitors().history(principalOf(request), request.params.id),
  }));
  // the editor's preview: what the monitor would find now, nothing stored or sent
  api.post(
    '/api/monitors/preview',
    doc('what a monitor would find now (nothing stored or sent)', { body: createMonitor, errors: [429, 503] }),
    async (request) => monitors().preview(principalOf(request), request.body),
  );
  api.patch('/api/monitors/:id', item('change a monitor', { body: patchMonitor }), async (request) =>
    monitors().update(principalOf(request), request.params.id, request.body),
  );
  api.post('/api/monitors/:id/enable', item('enable a monitor'), async (request) =>
    monitors().update(principalOf(request), request.params.id, { enabled: true }),
  );
  api.post('/api/monitors/:id/disable', item('disable a monitor'), async (request) =>
    monitors().update(principalOf(request), request.params.id, { enabled: false }),
  );
  api.post('/api/monitors/:id/run', item('run a monitor now'), async (request) =>
    monitors().runNow(principalOf(request), request.params.id),
  );
  api.delete('/api/monitors/:id', item('delete a monitor', { success: 204 }), async (request, reply) => {
    await monitors().delete(principalOf(request), request.params.id);
    return reply.code(204).send();
  });
}
