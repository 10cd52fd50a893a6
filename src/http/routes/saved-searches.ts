import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CHART_TYPES } from '../../control/records.js';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { intParam, onceString } from '../../http-kit/schema/params.js';
import { nameSchema, standardRouteDocs } from './admin-input.js';
import { withCancel } from './search-params.js';

const text = (max: number) =>
  z
    .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
    .max(max, `must be at most ${max} characters`);
const nonEmpty = (max: number) => text(max).trim().min(1, 'must not be empty');
const time = nonEmpty(64).describe('RFC 3339, or relative such as -24h, -1d@d, now');

const view = z
  .object(
    {
      type: z.enum(['events', 'table', 'chart'], {
        errorMap: () => ({ message: 'want "events", "table" or "chart"' }),
      }),
      chart: z
        .enum(CHART_TYPES, {
          errorMap: () => ({ message: `want one of ${CHART_TYPES.map((c) => `"${c}"`).join(', ')}` }),
        })
        .optional(),
      stacked: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    },
    { invalid_type_error: 'must be an object', required_error: 'is required' },
  )
  .strict()
  .refine((v) => (v.type === 'chart') === (v.chart !== undefined), {
    message: 'want {"type": "events"}, {"type": "table"} or {"type": "chart", "chart": "line"}',
  })
  .refine((v) => v.stacked === undefined || v.type === 'chart', { message: 'stacked: only a chart is stacked' })
  .transform((v) =>
    v.type === 'chart'
      ? { type: 'chart' as const, chart: v.chart!, ...(v.stacked !== undefined ? { stacked: v.stacked } : {}) }
      : { type: v.type },
  );

const fields = {
  name: nameSchema(200),
  description: text(2000).optional(),
  query: nonEmpty(10_000),
  env: nonEmpty(200).describe('an environment, or "*" for every one the person running it may read').optional(),
  index: nonEmpty(200).optional(),
  range: z
    .object({ from: time, to: time }, { invalid_type_error: 'must be an object', required_error: 'is required' })
    .strict()
    .optional(),
  view: view.optional(),
  shared: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
};

const version = z
  .number({ invalid_type_error: 'must be a number', required_error: 'is required: the version you read' })
  .int()
  .min(1);
const createBody = z.object(fields).strict();
const patchBody = z
  .object({ ...fields, index: fields.index.nullable() })
  .partial()
  .extend({ version })
  .strict();
const listQuery = z.object({
  q: onceString('a part of the name, in any case'),
  owner: onceString("an owner's name or id"),
  all: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(['true', 'false'], { errorMap: () => ({ message: 'want true or false' }) }).optional(),
    )
    .describe("admins: others' private saved searches too"),
});
const deleteQuery = z.object({
  version: intParam(1, Number.MAX_SAFE_INTEGER, 'delete only if it is still this version'),
});
const duplicateBody = z
  .object({ name: nameSchema(200).optional() })
  .strict()
  .optional();
const runBody = z
  .object({
    from: time.optional(),
    to: time.optional(),
    limit: z
      .number({ invalid_type_error: 'must be an integer from 1 to 10000' })
      .int('must be an integer from 1 to 10000')
      .min(1, 'must be an integer from 1 to 10000')
      .max(10_000, 'must be an integer from 1 to 10000')
      .optional(),
  })
  .strict()
  .optional();

/**
 * /api/saved-searches (docs/decisions/0023-saved-searches.md): list, create, get, change (with the
 * version read), delete, duplicate, run as the caller. The scopes of search: a session or a
 * Standard API key; what a run finds is narrowed by the caller's own allowlists.
 */
export async function savedSearchRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypes>();
  const saved = () => app.deps.savedSearches;
  const { doc, item } = standardRouteDocs('saved searches');

  api.get(
    '/api/saved-searches',
    doc("the caller's own and the shared saved searches, most recently used first", { querystring: listQuery }),
    async (request) => ({
      savedSearches: saved().list(principalOf(request), { ...request.query, all: request.query.all === 'true' }),
    }),
  );
  api.post(
    '/api/saved-searches',
    doc('save a search', { body: createBody, success: 201, errors: [409] }),
    async (request, reply) => reply.code(201).send(await saved().create(principalOf(request), request.body)),
  );
  api.get('/api/saved-searches/:id', item('one saved search'), async (request) =>
    saved().get(principalOf(request), request.params.id),
  );
  api.patch(
    '/api/saved-searches/:id',
    item('change a saved search (with the version read: 409 version_conflict when it changed meanwhile)', {
      body: patchBody,
      errors: [409],
    }),
    async (request) => saved().update(principalOf(request), request.params.id, request.body),
  );
  api.delete(
    '/api/saved-searches/:id',
    item('delete a saved search', { querystring: deleteQuery, success: 204, errors: [409] }),
    async (request, reply) => {
      await saved().delete(principalOf(request), request.params.id, request.query.version);
      return reply.code(204).send();
    },
  );
  api.post(
    '/api/saved-searches/:id/duplicate',
    item('a private copy of a saved search for the caller', { body: duplicateBody, success: 201, errors: [409] }),
    async (request, reply) =>
      reply.code(201).send(await saved().duplicate(principalOf(request), request.params.id, request.body?.name)),
  );
  api.post(
    '/api/saved-searches/:id/run',
    item('run a saved search as the caller (its range, or from/to given here)', { body: runBody, errors: [429, 503] }),
    async (request, reply) =>
      saved().run(principalOf(request), request.params.id, withCancel({ ...request.body }, reply)),
  );
}
