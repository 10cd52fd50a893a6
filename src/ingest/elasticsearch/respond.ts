import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { STATUS_BY_KIND } from '../../http/errors.js';

/** How an Elasticsearch client wants to see errors: the `{error: {root_cause, type, reason}, status}` shape. */

export const ES_VERSION = '8.19.0';

const TYPE_BY_KIND: Record<string, string> = {
  bad_request: 'illegal_argument_exception',
  unauthenticated: 'security_exception',
  forbidden: 'security_exception',
  not_found: 'resource_not_found_exception',
  too_large: 'content_too_long_exception',
  too_many_requests: 'es_rejected_execution_exception',
  unavailable: 'unavailable_shards_exception',
  internal: 'exception',
};

export function esErrorType(err: SvcError): string {
  if (err.code === 'invalid_json') return 'x_content_parse_exception';
  if (err.code === 'unknown_environment') return 'index_not_found_exception';
  return TYPE_BY_KIND[err.kind] ?? 'exception';
}

export function esStatus(err: SvcError): number {
  return STATUS_BY_KIND[err.kind];
}

/** Sends an SvcError as a whole-request Elasticsearch error. */
export function sendEsError(reply: FastifyReply, err: SvcError): FastifyReply {
  const status = esStatus(err);
  const cause: Record<string, unknown> = { type: esErrorType(err), reason: err.message };
  if (status === 401) {
    cause.header = { 'WWW-Authenticate': ['ApiKey', 'Basic realm="security" charset="UTF-8"', 'Bearer realm="security"'] };
    reply.header('WWW-Authenticate', 'ApiKey');
  }
  if (err.retryAfterSecs !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSecs))));
  return reply.code(status).type('application/json').send({ error: { root_cause: [cause], ...cause }, status });
}

/** The cluster description `GET /` answers; clients read version.number. */
export function clusterInfo(): Record<string, unknown> {
  return {
    name: 'svc',
    cluster_name: 'svc',
    cluster_uuid: 'c3ZjLWNsdXN0ZXItdXVpZA',
    version: {
      number: ES_VERSION,
      build_flavor: 'default',
      build_type: 'svc',
      build_hash: '0000000',
      build_date: '2026-01-01T00:00:00.000Z',
      build_snapshot: false,
      lucene_version: '9.12.0',
      minimum_wire_compatibility_version: '7.17.0',
      minimum_index_compatibility_version: '7.0.0',
    },
    tagline: 'You Know, for Search',
  };
}
