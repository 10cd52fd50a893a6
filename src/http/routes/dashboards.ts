import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import { described, type ZodTypes } from '../../http-kit/schema/compiler.js';
import { createSchema, exportSchema, patchSchema, replaceSchema } from '../../dashboards/format.js';
import { standardRouteDocs } from './admin-input.js';

const name = z.string().min(1).max(100);
const time = z.string({ invalid_type_error: 'must be a string' }).min(1, 'must not be empty').max(64);
const varValue = z.union([z.string().max(1000), z.array(z.string().max(1000)).max(100)], {
  errorMap: () => ({ message: 'want a string, or a list of strings for a multi variable' }),
});
const runBody = z
  .object({
    from: time.optional().describe("start of the range (default: the dashboard's); relative or RFC 3339"),
    to: time.optional().describe("end of the range (default: the dashboard's)"),
    now: time
      .optional()
      .describe('the instant relative times resolve at: send the same for every panel of one load (default: now)'),
    vars: z
      .record(z.string().max(64), varValue)
      .optional()
      .describe("variable values by name (default: each one's default)"),
  })
  .strict()
  .optional();

/*
 * The dashboard bodies are documented here and checked by the dashboards subsystem (format.ts), so
 * that create, replace, patch and import name a problem alike, by its path (`panels[2].source.query`),
 * and a query problem with its position.
 */
const createBody = described(createSchema);
const replaceBody = described(replaceSchema);
const patchBody = described(patchSchema);
const importBody = described(exportSchema);

/**
 * /api/dashboards (docs/decisions/0024-dashboards.md, docs/dashboards.md): list, create, get,
 * change (PATCH, PUT: with the version read), delete, export and import the versioned JSON, run a
 * panel and list a variable's values as the caller. Any user or Standard API key, as search.
 */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypes>();
  const dash = () => app.deps.dashboards;
  const { doc, item } = standardRouteDocs('dashboards');

  api.get(
    '/api/dashboards',
    doc('list the dashboards the caller may see (own and shared)', {
      querystring: z.object({ q: z.string().max(200).optional().describe('part of a title or owner name') }),
    }),
    async (request) => ({ dashboards: dash().list(principalOf(request), request.query.q) }),
  );
  api.get(
    '/api/dashboards/home',
    doc('the home dashboard of Admin → General, when the caller may open it (else id null)'),
    async (request) => dash().home(principalOf(request)),
  );
  api.post(
    '/api/dashboards',
    doc('create a dashboard', { body: createBody, success: 201, errors: [409] }),
    async (request, reply) => reply.code(201).send(await dash().create(principalOf(request), request.body as unknown)),
  );
  api.post(
    '/api/dashboards/import',
    doc('create a dashboard from its export file (format 1)', { body: importBody, success: 201, errors: [409] }),
    async (request, reply) => reply.code(201).send(await dash().import(principalOf(request), request.body as unknown)),
  );
  api.get('/api/dashboards/:id', item('one dashboard'), async (request) =>
    dash().get(principalOf(request), request.params.id),
  );
  api.get('/api/dashboards/:id/export', item("a dashboard's export file (format 1)"), async (request) =>
    dash().export(principalOf(request), request.params.id),
  );
  api.patch(
    '/api/dashboards/:id',
    item('change a dashboard (from the version read)', { body: patchBody, errors: [409] }),
    async (request) => dash().update(principalOf(request), request.params.id, request.body as unknown),
  );
  api.put(
    '/api/dashboards/:id',
    item('replace a dashboard (from the version read)', { body: replaceBody, errors: [409] }),
    async (request) => dash().replace(principalOf(request), request.params.id, request.body as unknown),
  );
  api.delete('/api/dashboards/:id', item('delete a dashboard', { success: 204 }), async (request, reply) => {
    await dash().delete(principalOf(request), request.params.id);
    return reply.code(204).send();
  });
  api.post(
    '/api/dashboards/:id/panels/:panelId/run',
    doc("run a panel's query as the caller", {
      params: z.object({ id: name, panelId: name }),
      body: runBody,
      errors: [429, 503],
    }),
    async (request) =>
      dash().runPanel(principalOf(request), request.params.id, request.params.panelId, request.body ?? {}),
  );
  api.post(
    '/api/dashboards/:id/variables/:name/values',
    doc("a variable's values (a query variable's run as the caller)", {
      params: z.object({ id: name, name }),
      body: runBody,
      errors: [429, 503],
    }),
    async (request) =>
      dash().variableValues(principalOf(request), request.params.id, request.params.name, request.body ?? {}),
  );
}
