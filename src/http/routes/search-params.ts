import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import type { HistogramRequest, SearchRequest } from '../../query/types.js';
import { intParam, onceString } from '../../http-kit/schema/params.js';

/** Every parameter the search routes take; each route reads the ones it knows. */
export type SearchParams = SearchRequest & HistogramRequest & { top?: number; saved?: string };

const fields = {
  q: onceString('the query (docs/query-language.md); empty: every event'),
  env: onceString('environment to search; default: every one the caller may read'),
  index: onceString('index to search; default: every one'),
  from: onceString('start of the time range: RFC 3339, or relative such as -15m; default -15m'),
  to: onceString('end of the time range (exclusive); default now'),
  by: onceString('/api/histogram: a field to stack the counts by'),
  limit: intParam(1, 10_000, '/api/search: events or rows to answer (default 100)'),
  buckets: intParam(1, 1000, '/api/histogram: number of buckets'),
  top: intParam(1, 100, '/api/fields: values per field'),
  series: intParam(1, 20, '/api/histogram with by: series kept (the rest is "other")'),
  saved: onceString(
    '/api/search only: the saved search this run is (its query, env and index unchanged), recorded as its run (lastRunAt)',
  ),
  writes: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .enum(['allow'], { errorMap: () => ({ message: 'must be "allow"' }) })
      .describe(
        '/api/search only: "allow" runs a search that writes (outputlookup); without it such a search is a 400 (docs/lookups.md)',
      )
      .optional(),
  ),
};

/** The search parameters in a query string: unknown ones are ignored, as a URL often carries others. */
export const searchQuery = z.object(fields);

/**
 * The same parameters as a JSON body (POST: a long query does not fit in a URL). Anything but an
 * object of known parameters is a 400 naming what is wrong, never a search of everything.
 */
export const searchBody = z
  .object(fields, { invalid_type_error: 'must be a JSON object of search parameters (q, env, index, from, to, …)' })
  .strict()
  .optional();

type SearchInput = z.output<typeof searchQuery>;

/** The parameters of a request the schemas above checked: the query string's, then the body's (body wins). */
export function searchParams(request: FastifyRequest): SearchParams {
  const out: SearchParams = { q: '' };
  for (const src of [request.query, request.method === 'POST' ? request.body : undefined] as SearchInput[]) {
    for (const [k, v] of Object.entries(src ?? {})) if (v !== undefined) Object.assign(out, { [k]: v });
  }
  return out;
}

/**
 * Refuses `writes` on a route that never writes (histogram, fields, export): only a search's answer
 * says what it wrote, so a write is confirmed on /api/search alone.
 */
export function refuseWrites(params: { writes?: string }, route: string): void {
  if (params.writes !== undefined)
    throw new SvcError('invalid_query', `writes=${params.writes} is taken only by /api/search, not by ${route}`, {
      details: { param: 'writes' },
    });
}

/** Stops the search when the client disconnects before its answer is sent: nobody would read it. */
export function withCancel<R extends object>(req: R, reply: FastifyReply): R & { signal: AbortSignal } {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new SvcError('request_cancelled', 'the client closed the connection'));
  });
  return { ...req, signal: ac.signal };
}
