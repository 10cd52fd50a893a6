import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_SIDE } from '../../query/context.js';
import { exactTimeUs } from '../../query/time-range.js';
import type { ContextResult } from '../../query/types.js';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { GIVEN_ONCE } from '../../http-kit/schema/params.js';
import { withCancel } from './search-params.js';

const once = { required_error: 'is required', invalid_type_error: GIVEN_ONCE };
const name = z.string(once).min(1, 'is required').max(200, 'must be at most 200 characters');
const side = z
  .string(once)
  .regex(/^\d+$/, `must be an integer from 0 to ${MAX_SIDE}`)
  .transform(Number)
  .pipe(z.number().max(MAX_SIDE, `must be an integer from 0 to ${MAX_SIDE}`));

const contextParams = z
  .object({
    env: name.describe('environment of the event'),
    index: name.describe('index of the event'),
    time: z
      .string(once)
      .refine(
        (t) => exactTimeUs(t) !== undefined,
        'want the event time as search returned it, such as 2026-01-31T12:00:00.123456Z',
      )
      .describe('the event time as search returned it (RFC 3339 with microseconds)'),
    host: z.string(once).max(10_000, 'must be at most 10000 characters').optional().describe('same host only'),
    source: z.string(once).max(10_000, 'must be at most 10000 characters').optional().describe('same source only'),
    before: side.optional().describe(`events before it, 0 to ${MAX_SIDE}`),
    after: side.optional().describe(`events after it, 0 to ${MAX_SIDE}`),
  })
  .strict();

/**
 * GET /api/context: the events around one event, from the same env and index and, when given, the
 * same host and source (query/context.ts). Same access as search; naming an env or index the caller
 * may not read is 403.
 */
export async function contextRoutes(app: FastifyInstance): Promise<void> {
  const schema = {
    summary: 'the events around one event (same env, index, host, source)',
    tags: ['search'],
    querystring: contextParams,
    errors: [429, 503],
  };
  app
    .withTypeProvider<ZodTypes>()
    .get(
      '/api/context',
      { config: { access: 'standard', audit: { action: 'context' } }, schema },
      async (request, reply): Promise<ContextResult> =>
        app.deps.search.context(principalOf(request), withCancel(request.query, reply)),
    );
}
