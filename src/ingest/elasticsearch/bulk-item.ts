import type { ErrorKind } from '../../errors/codes.js';
import type { SvcError } from '../../errors/svc-error.js';

/**
 * What became of one `_bulk` action, as data: respond.ts turns it into the item an Elasticsearch
 * client reads (its `status`, `result`, `error`).
 */
export interface BulkItem {
  op: string;
  index: string;
  id: string | undefined;
  /** Absent: the document was created. */
  error?: BulkItemError;
}

/** Why an action failed: its error kind (respond.ts knows the status) and Elasticsearch's type and reason. */
export interface BulkItemError {
  kind: ErrorKind;
  type: string;
  reason: string;
}

/** Elasticsearch's error type for each kind of SvcError. */
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

/** An item's failure for an SvcError (an index it may not write, a full writer queue). */
export function itemError(err: SvcError): BulkItemError {
  return { kind: err.kind, type: esErrorType(err), reason: err.message };
}
