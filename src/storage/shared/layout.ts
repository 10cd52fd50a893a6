import { encodeName } from '../blocks/block-files.js';
import type { BlockMeta } from '../blocks/sidecar.js';
import type { ObjectStore, StoreObject } from '../../shared-store/object-store.js';

// The keys several nodes share in the store (docs/storage.md, "Several nodes"):
//
//   nodes/<node>/manifest.json                            the blocks <node> published (its own writes; the
//                                                         retention sweeper edits it with conditional writes)
//   nodes/<node>/status.json                              what <node> last reported (written every sync)
//   nodes/<node>/retired.json                             present once an operator retired <node>
//   blocks/<node>/<env>/<index>/<day>/<name>.parquet      a block <node> uploaded
//   blocks/<node>/<env>/<index>/<day>/<name>.json         its sidecar (uploaded after the Parquet file)
//   leases/retention.json                                 who runs the cluster's retention sweep, until when
//
// Env and index names are %-escaped as in the data dir (encodeName).

export const NODES_PREFIX = 'nodes/';
export const RETENTION_LEASE = 'leases/retention.json';

export const manifestKey = (node: string): string => `nodes/${node}/manifest.json`;
export const statusKey = (node: string): string => `nodes/${node}/status.json`;
export const retiredKey = (node: string): string => `nodes/${node}/retired.json`;

/** The store keys of a block's Parquet file and sidecar. */
export function blockKeys(
  node: string,
  meta: Pick<BlockMeta, 'env' | 'index' | 'day' | 'name'>,
): { key: string; sidecarKey: string } {
  const base = `blocks/${node}/${encodeName(meta.env)}/${encodeName(meta.index)}/${meta.day}/${meta.name}`;
  return { key: `${base}.parquet`, sidecarKey: `${base}.json` };
}

/** `nodes/<node>/<file>` → its node and file; undefined for any other key. */
export function parseNodeKey(key: string): { node: string; file: string } | undefined {
  const m = /^nodes\/([^/]+)\/([^/]+)$/.exec(key);
  return m ? { node: m[1], file: m[2] } : undefined;
}

/** What the store holds per node under `nodes/`: its manifest, status and retirement mark. */
export interface NodeObjects {
  manifest?: StoreObject;
  status?: StoreObject;
  retired?: StoreObject;
}

/** Every node that has anything under `nodes/`, with its objects (one list call). */
export async function listNodes(store: ObjectStore): Promise<Map<string, NodeObjects>> {
  const out = new Map<string, NodeObjects>();
  for (const o of await store.list(NODES_PREFIX)) {
    const k = parseNodeKey(o.key);
    if (!k) continue;
    const n = out.get(k.node) ?? {};
    if (k.file === 'manifest.json') n.manifest = o;
    else if (k.file === 'status.json') n.status = o;
    else if (k.file === 'retired.json') n.retired = o;
    else continue;
    out.set(k.node, n);
  }
  return out;
}
