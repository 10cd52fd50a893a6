import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

const deleteBody = z
  .object({
    env: z.string().min(1).max(100),
    index: z.string().min(1).max(100).optional(),
    from: z.string().min(1).max(64),
    to: z.string().min(1).max(64),
    // not empty: `*` says "everything in the range" on purpose
    query: z.string().min(1).max(10_000),
    dryRun: z.boolean().optional(),
  })
  .strict();
const idParams = z.object({ jobId: z.string().regex(/^del-[a-z0-9]+-[0-9a-f]{8}$/, 'a delete job id (del-…)') });

/**
 * /api/admin/delete: delete by query (docs/delete.md). A dry run answers the count; otherwise a
 * job starts (202) that rewrites the blocks holding matching events, on every node of a shared store.
 */
export async function adminDeleteRoutes(app: FastifyInstance): Promise<void> {
  const jobs = () => app.deps.deletes;
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];

  const ask = {
    summary: 'delete the events a filter matches in a range (dryRun: count them)',
    tags,
    body: deleteBody,
    success: 202,
  };
  api.post('/api/admin/delete', { config, schema: ask }, async (request, reply) => {
    const { dryRun, ...rest } = request.body;
    const spec = jobs().spec(rest);
    if (dryRun) return { dryRun: true, matchingEvents: await jobs().dryRun(spec) };
    const p = principalOf(request);
    return reply.code(202).send({ job: await jobs().create(spec, { id: p.id, name: p.name, kind: p.kind }) });
  });

  api.get('/api/admin/delete', { config, schema: { summary: 'delete jobs, newest first', tags } }, async () => ({
    jobs: await jobs().list(),
  }));

  const one = { summary: 'a delete job: status, progress, events deleted', tags, params: idParams };
  api.get('/api/admin/delete/:jobId', { config, schema: one }, async (request) => ({
    job: await jobs().view(request.params.jobId),
  }));

  const cancel = { summary: 'stop a delete job after the block it is on', tags, params: idParams };
  api.post('/api/admin/delete/:jobId/cancel', { config, schema: cancel }, async (request) => ({
    job: await jobs().cancel(request.params.jobId),
  }));
}
