import type { FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../errors/svc-error.js';
import type { HistogramRequest, SearchRequest } from '../../query/types.js';

/** Every parameter the search routes take; each route reads the ones it knows. */
export type SearchParams = SearchRequest & HistogramRequest & { top?: number };

const STRING_KEYS = ['q', 'env', 'index', 'from', 'to', 'by'] as const;

/** An integer parameter from `min` to `max`, or undefined when absent; else 400 naming it. */
export function intParam(src: Record<string, unknown>, key: string, max: number, min = 1): number | undefined {
  const v = src[key];
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new SvcError('invalid_input', `${key} must be an integer from ${min} to ${max}, not ${JSON.stringify(v)}`, {
      details: { field: key },
    });
  return n;
}

const BODY_KEYS = new Set<string>([...STRING_KEYS, 'limit', 'buckets', 'top', 'series']);

/**
 * The parameters from the query string (GET) or a JSON body (POST); body wins. A body is a JSON
 * object of the parameters the search routes know; anything else is a 400 naming what is wrong,
 * never a search of everything.
 */
export function paramSource(request: FastifyRequest): Record<string, unknown> {
  const query = request.query as Record<string, unknown>;
  if (request.method !== 'POST' || request.body === undefined || request.body === null) return query;
  const body = request.body;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new SvcError(
      'invalid_input',
      `the body must be a JSON object of search parameters (q, env, index, from, to, …), not ${Array.isArray(body) ? 'an array' : typeof body}`,
    );
  const unknown = Object.keys(body).filter((k) => !BODY_KEYS.has(k));
  if (unknown.length)
    throw new SvcError(
      'invalid_input',
      `unknown search parameter ${JSON.stringify(unknown[0])}: want ${[...BODY_KEYS].join(', ')}`,
      { details: { field: unknown[0] } },
    );
  return { ...query, ...(body as Record<string, unknown>) };
}

/** The search parameters of a request: strings given once, integers within their ranges. */
export function searchParams(request: FastifyRequest): SearchParams {
  const src = paramSource(request);
  const out: SearchParams = { q: '' };
  for (const k of STRING_KEYS) {
    const v = src[k];
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string')
      throw new SvcError('invalid_input', `${k} must be given once, as a string`, { details: { field: k } });
    out[k] = v;
  }
  out.limit = intParam(src, 'limit', 10_000);
  out.buckets = intParam(src, 'buckets', 1000);
  out.top = intParam(src, 'top', 100);
  out.series = intParam(src, 'series', 20);
  return out;
}

/** Stops the search when the client disconnects before its answer is sent: nobody would read it. */
export function withCancel<R extends object>(req: R, reply: FastifyReply): R & { signal: AbortSignal } {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new SvcError('request_cancelled', 'the client closed the connection'));
  });
  return { ...req, signal: ac.signal };
}
