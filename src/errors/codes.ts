/**
 * The closed catalog of error codes. Every error svc answers carries one of these.
 * `kind` is the protocol-neutral class; only src/http-kit/errors.ts maps kinds to HTTP status,
 * and protocol adapters translate kinds into their own error shapes at the edge.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'too_many_requests'
  | 'unavailable'
  | 'internal';

export const ERROR_CODES = {
  // input
  invalid_input: 'bad_request',
  invalid_json: 'bad_request',
  invalid_query: 'bad_request',
  invalid_time: 'bad_request',
  unknown_environment: 'bad_request',
  reserved_name: 'bad_request',
  unsupported_media_type: 'bad_request',
  body_too_large: 'too_large',
  headers_too_large: 'too_large',
  // credentials
  missing_credentials: 'unauthenticated',
  invalid_credentials: 'unauthenticated',
  expired_credentials: 'unauthenticated',
  disabled_credentials: 'unauthenticated',
  session_expired: 'unauthenticated',
  // authorization
  insufficient_scope: 'forbidden',
  access_denied: 'forbidden',
  tool_hidden: 'forbidden',
  cross_site_request: 'forbidden',
  // resources
  not_found: 'not_found',
  already_exists: 'conflict',
  cannot_delete: 'conflict',
  limit_reached: 'conflict',
  node_running: 'conflict',
  version_conflict: 'conflict',
  // load
  queue_full: 'too_many_requests',
  rate_limited: 'too_many_requests',
  too_many_searches: 'too_many_requests',
  shutting_down: 'unavailable',
  storage_unavailable: 'unavailable',
  control_unavailable: 'unavailable',
  query_timeout: 'unavailable',
  query_too_large: 'unavailable',
  sso_unavailable: 'unavailable',
  llm_not_configured: 'unavailable',
  llm_unavailable: 'unavailable',
  llm_invalid_output: 'unavailable',
  llm_budget_exhausted: 'too_many_requests',
  request_cancelled: 'bad_request',
  // broken invariants and the unexpected
  internal: 'internal',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;
