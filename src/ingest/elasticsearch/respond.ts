import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { STATUS_BY_KIND, setErrorStatus, setRetryAfter } from '../../http-kit/errors.js';
import type { BulkItem } from './bulk-item.js';
import { esErrorType } from './bulk-item.js';

/**
 * Elasticsearch's edge: the statuses and bodies its clients expect. Errors are the
 * `{error: {root_cause, type, reason}, status}` shape; the `_bulk` answer is rendered straight to
 * JSON text (at 5,000 items a request, building objects for Fastify to serialise cost more than
 * decoding the documents). Items keep the fields clients read (`_index`, `_id`, `_version`,
 * `result`, `status`, `error`) and honour `filter_path` the way Filebeat uses it
 * (`errors,items.*.error,items.*.status`).
 */

export const ES_VERSION = '8.19.0';

/** Sends an SvcError as a whole-request Elasticsearch error. */
export function sendEsError(reply: FastifyReply, err: SvcError): FastifyReply {
  const status = setErrorStatus(reply, err, { challenge: 'ApiKey' });
  const cause: Record<string, unknown> = { type: esErrorType(err), reason: err.message };
  if (status === 401)
    cause.header = {
      'WWW-Authenticate': ['ApiKey', 'Basic realm="security" charset="UTF-8"', 'Bearer realm="security"'],
    };
  return reply.type('application/json').send({ error: { root_cause: [cause], ...cause }, status });
}

/** The status of one bulk item: 201 created, else its error kind's. */
export function esItemStatus(it: BulkItem): number {
  return it.error ? STATUS_BY_KIND[it.error.kind] : 201;
}

/** What `filter_path` keeps; undefined keeps everything. */
export interface BulkFilter {
  top: Set<string>;
  /** Item keys kept; null = whole items. */
  itemKeys: Set<string> | null;
}

/** Parses `filter_path` (comma-separated `took`, `errors`, `items`, `items.*.<key>`). */
export function parseFilterPath(v: string | undefined): BulkFilter | undefined {
  if (!v) return undefined;
  const top = new Set<string>();
  let itemKeys: Set<string> | null = new Set();
  for (const raw of v.split(',')) {
    const p = raw.trim();
    const m = /^items\.\*\.([A-Za-z_]+)(?:\..*)?$/.exec(p);
    if (m) {
      top.add('items');
      itemKeys?.add(m[1]);
    } else if (p === 'items' || p === 'items.*' || p === 'items.**') {
      top.add('items');
      itemKeys = null;
    } else top.add(p.split('.')[0]);
  }
  return { top, itemKeys };
}

const OK_TAIL =
  ',"_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}';

/** `{"<op>":{"_index":"<index>","_id":` of the previous item: bulk requests repeat op and index. */
let prefixKey = '';
let prefix = '';

function renderItem(it: BulkItem, keys: Set<string> | null): string {
  const idJson = it.id === undefined ? 'null' : JSON.stringify(it.id);
  const error = it.error && { type: it.error.type, reason: it.error.reason };
  if (keys === null) {
    // fast path: the common success item, only the id varies between consecutive items
    if (!error) {
      const key = `${it.op}\n${it.index}`;
      if (key !== prefixKey) {
        prefixKey = key;
        prefix = `{"${it.op}":{"_index":${JSON.stringify(it.index)},"_id":`;
      }
      return prefix + idJson + OK_TAIL;
    }
    return JSON.stringify({ [it.op]: { _index: it.index, _id: it.id ?? null, status: esItemStatus(it), error } });
  }
  const parts: string[] = [];
  if (keys.has('_index')) parts.push(`"_index":${JSON.stringify(it.index)}`);
  if (keys.has('_id')) parts.push(`"_id":${idJson}`);
  if (keys.has('result') && !error) parts.push('"result":"created"');
  if (keys.has('status')) parts.push(`"status":${esItemStatus(it)}`);
  if (keys.has('error') && error) parts.push(`"error":${JSON.stringify(error)}`);
  return `{"${it.op}":{${parts.join(',')}}}`;
}

export function renderBulkResponse(items: BulkItem[], tookMs: number, filter: BulkFilter | undefined): string {
  const errors = items.some((it) => it.error !== undefined);
  const out: string[] = [];
  if (!filter || filter.top.has('took')) out.push(`"took":${tookMs}`);
  if (!filter || filter.top.has('errors')) out.push(`"errors":${errors}`);
  if (!filter || filter.top.has('items')) {
    const keys = filter ? filter.itemKeys : null;
    out.push(`"items":[${items.map((it) => renderItem(it, keys)).join(',')}]`);
  }
  return `{${out.join(',')}}`;
}

/**
 * Sends the `_bulk` answer: always 200, failures are per item. `retryAfterSecs` is given when the
 * writer queue was full: the accepted items then carry `status: 429` (es_rejected_execution_exception)
 * and the answer `Retry-After`, which is what the client's bulk helper, Filebeat and Logstash retry
 * (a whole-request 429 is not retried by the helper).
 */
export function sendBulk(
  reply: FastifyReply,
  items: BulkItem[],
  tookMs: number,
  filter: BulkFilter | undefined,
  retryAfterSecs?: number,
): FastifyReply {
  if (retryAfterSecs !== undefined) setRetryAfter(reply, retryAfterSecs);
  return reply.type('application/json').send(renderBulkResponse(items, tookMs, filter));
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
