import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../errors/svc-error.js';
import type { SearchRequest } from '../../query/types.js';
import { principalOf } from '../auth-hook.js';

const STRING_KEYS = ['q', 'env', 'index', 'from', 'to'] as const;

function intParam(src: Record<string, unknown>, key: string, max: number): number | undefined {
  const v = src[key];
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new SvcError('invalid_input', `${key} must be an integer from 1 to ${max}, not ${JSON.stringify(v)}`, { details: { field: key } });
  return n;
}

/** The search parameters from the query string (GET) or a JSON body (POST); body wins. */
function searchParams(request: FastifyRequest): SearchRequest & { buckets?: number; top?: number } {
  const body = request.method === 'POST' && request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
  const src = { ...(request.query as Record<string, unknown>), ...body };
  const out: SearchRequest & { buckets?: number; top?: number } = { q: '' };
  for (const k of STRING_KEYS) {
    const v = src[k];
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string') throw new SvcError('invalid_input', `${k} must be given once, as a string`, { details: { field: k } });
    out[k] = v;
  }
  out.limit = intParam(src, 'limit', 10_000);
  out.buckets = intParam(src, 'buckets', 1000);
  out.top = intParam(src, 'top', 100);
  return out;
}

/**
 * Search routes (DESIGN 6): GET|POST /api/search, GET /api/histogram, GET /api/fields.
 * Standard API scope or a session; RBAC narrowing happens in the SearchService.
 */
/** Stops the search when the client disconnects before its answer is sent: nobody would read it. */
function withCancel<R extends SearchRequest>(req: R, reply: FastifyReply): R {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new SvcError('request_cancelled', 'the client closed the connection'));
  });
  return { ...req, signal: ac.signal };
}

export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'standard' as const } };
  const search = async (request: FastifyRequest, reply: FastifyReply) => app.deps.search.search(principalOf(request), withCancel(searchParams(request), reply));
  app.get('/api/search', opts, search);
  app.post('/api/search', opts, search);
  app.get('/api/histogram', opts, async (request, reply) => app.deps.search.histogram(principalOf(request), withCancel(searchParams(request), reply)));
  app.get('/api/fields', opts, async (request, reply) => app.deps.search.fields(principalOf(request), withCancel(searchParams(request), reply)));
}
