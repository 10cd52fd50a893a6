import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { principalOf } from '../../http-kit/access.js';
import { refuseWrites, searchBody, searchParams, searchQuery, withCancel, type SearchParams } from './search-params.js';

/** The parameters of a route that never writes: `writes` is refused there. */
function notWriting(request: FastifyRequest, route: string): SearchParams {
  const params = searchParams(request);
  refuseWrites(params, route);
  return params;
}

/**
 * Search routes (docs/decisions/0013-search-api-and-answers.md): GET|POST /api/search, GET|POST
 * /api/histogram (optionally stacked by a field: `by`, `series`), GET|POST /api/fields; POST takes the
 * parameters as a JSON body. Only /api/search takes `writes=allow`, the confirmation a search that
 * writes (outputlookup) needs. Standard API scope or a session; RBAC narrowing happens in the SearchService.
 */
export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const routes: [string, string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>][] = [
    [
      '/api/search',
      'search events (or the table of a query with pipes)',
      async (request, reply) => {
        const { saved, ...params } = searchParams(request);
        const p = principalOf(request);
        const answer = await app.deps.search.search(p, withCancel(params, reply));
        // the UI's run of a saved search it opened: its "last run" (docs/saved-searches.md)
        if (saved) await app.deps.savedSearches.noteRun(p, saved, params);
        return answer;
      },
    ],
    [
      '/api/histogram',
      'event counts over time, optionally stacked by a field',
      async (request, reply) =>
        app.deps.search.histogram(principalOf(request), withCancel(notWriting(request, '/api/histogram'), reply)),
    ],
    [
      '/api/fields',
      'the fields of the matching events with their top values',
      async (request, reply) =>
        app.deps.search.fields(principalOf(request), withCancel(notWriting(request, '/api/fields'), reply)),
    ],
  ];
  const doc = { tags: ['search'], errors: [429, 503] } satisfies FastifySchema;
  for (const [url, summary, handler] of routes) {
    // audit (http/audit.ts): `search`, `histogram`, `fields`
    const config = { access: 'standard' as const, audit: { action: url.slice('/api/'.length) } };
    app.get(url, { config, schema: { ...doc, summary, querystring: searchQuery } }, handler);
    // POST takes the same parameters as a JSON body: a long query does not fit in a URL (431)
    app.post(
      url,
      {
        config,
        schema: {
          ...doc,
          summary: `${summary} (parameters in a JSON body)`,
          querystring: searchQuery,
          body: searchBody,
        },
      },
      handler,
    );
  }
}
