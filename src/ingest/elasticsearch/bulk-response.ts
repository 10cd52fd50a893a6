/**
 * The `_bulk` answer, rendered straight to JSON text: at 5,000 items a request, building objects
 * for Fastify to serialise cost more than decoding the documents. Items keep the fields clients
 * read (`_index`, `_id`, `_version`, `result`, `status`, `error`) and honour `filter_path` the way
 * Filebeat uses it (`errors,items.*.error,items.*.status`).
 */

export interface BulkItem {
  op: string;
  index: string;
  id: string | undefined;
  status: number;
  error?: { type: string; reason: string };
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

const OK_TAIL = ',"_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}';

/** `{"<op>":{"_index":"<index>","_id":` of the previous item: bulk requests repeat op and index. */
let prefixKey = '';
let prefix = '';

function renderItem(it: BulkItem, keys: Set<string> | null): string {
  const idJson = it.id === undefined ? 'null' : JSON.stringify(it.id);
  if (keys === null) {
    // fast path: the common success item, only the id varies between consecutive items
    if (it.status === 201) {
      const key = `${it.op}\n${it.index}`;
      if (key !== prefixKey) {
        prefixKey = key;
        prefix = `{"${it.op}":{"_index":${JSON.stringify(it.index)},"_id":`;
      }
      return prefix + idJson + OK_TAIL;
    }
    return JSON.stringify({ [it.op]: { _index: it.index, _id: it.id ?? null, status: it.status, error: it.error } });
  }
  const parts: string[] = [];
  if (keys.has('_index')) parts.push(`"_index":${JSON.stringify(it.index)}`);
  if (keys.has('_id')) parts.push(`"_id":${idJson}`);
  if (keys.has('result') && it.status === 201) parts.push('"result":"created"');
  if (keys.has('status')) parts.push(`"status":${it.status}`);
  if (keys.has('error') && it.error) parts.push(`"error":${JSON.stringify(it.error)}`);
  return `{"${it.op}":{${parts.join(',')}}}`;
}

export function renderBulkResponse(items: BulkItem[], tookMs: number, filter: BulkFilter | undefined): string {
  const errors = items.some((it) => it.status >= 300);
  const out: string[] = [];
  if (!filter || filter.top.has('took')) out.push(`"took":${tookMs}`);
  if (!filter || filter.top.has('errors')) out.push(`"errors":${errors}`);
  if (!filter || filter.top.has('items')) {
    const keys = filter ? filter.itemKeys : null;
    out.push(`"items":[${items.map((it) => renderItem(it, keys)).join(',')}]`);
  }
  return `{${out.join(',')}}`;
}
