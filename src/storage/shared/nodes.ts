import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import type { ObjectStore } from '../../shared-store/object-store.js';
import { Limiter } from './checksum.js';
import { listNodes, retiredKey, statusKey, type NodeObjects } from './layout.js';
import { readManifest, type Manifest } from './manifest.js';
import type { NodeInfo } from './types.js';

// The nodes of a cluster for operators: each node's status object (written every sync), the
// listing `GET /api/admin/nodes` answers, and retirement (`nodes/<id>/retired.json`).

/** `nodes/<node>/status.json`: what a node reports at every sync. */
export interface NodeStatus {
  v: 1;
  node: string;
  /** ms since the epoch of this write. */
  at: number;
  startedAt: number;
  syncSecs: number;
  lastSyncAt: number | null;
  unpublished: { blocks: number; bytes: number; oldestMs: number };
  cache: { bytes: number; maxBytes: number; hitRate: number | null };
  storeAvailable: boolean;
  /** Written by a clean stop: the node is down now, whatever `at` says. */
  stoppedAt?: number;
}

const statusSchema = z
  .object({
    v: z.literal(1),
    node: z.string(),
    at: z.number(),
    startedAt: z.number(),
    syncSecs: z.number(),
    lastSyncAt: z.number().nullable(),
    unpublished: z.object({ blocks: z.number(), bytes: z.number(), oldestMs: z.number() }),
    cache: z.object({ bytes: z.number(), maxBytes: z.number(), hitRate: z.number().nullable() }),
    storeAvailable: z.boolean(),
    stoppedAt: z.number().optional(),
  })
  .passthrough();

/** A node whose status is older than this many of its sync intervals is taken to be stopped. */
const ALIVE_SYNCS = 3;

/** Reported within three of its sync intervals and not stopped cleanly since. */
function isRunning(s: NodeStatus, now: number): boolean {
  return s.stoppedAt === undefined && now - s.at < ALIVE_SYNCS * s.syncSecs * 1000;
}

export async function writeStatus(store: ObjectStore, s: NodeStatus): Promise<void> {
  await store.put(statusKey(s.node), Buffer.from(JSON.stringify(s)));
}

async function readJson<T>(
  store: ObjectStore,
  key: string,
  parse: (v: unknown) => T | undefined,
): Promise<T | undefined> {
  const got = await store.get(key);
  if (!got) return undefined;
  try {
    return parse(JSON.parse(got.data.toString('utf8')));
  } catch {
    return undefined;
  }
}

const readStatus = (store: ObjectStore, node: string) =>
  readJson(store, statusKey(node), (v) => statusSchema.safeParse(v).data as NodeStatus | undefined);
const readRetired = (store: ObjectStore, node: string) =>
  readJson(store, retiredKey(node), (v) => z.object({ at: z.number() }).passthrough().safeParse(v).data);

/** One node's entry of the listing, from its objects (fresh reads: operators want the truth, not this node's last sync). */
async function describe(store: ObjectStore, self: string, node: string, objs: NodeObjects): Promise<NodeInfo> {
  const [status, retired, manifest] = await Promise.all([
    objs.status ? readStatus(store, node) : undefined,
    objs.retired ? readRetired(store, node) : undefined,
    objs.manifest ? readManifest(store, node).then((s) => s.manifest) : undefined,
  ]);
  const blocks: Manifest['blocks'] = manifest?.blocks ?? [];
  const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);
  return {
    id: node,
    self: node === self,
    retired: retired !== undefined,
    retiredAt: iso(retired?.at),
    state: status && isRunning(status, Date.now()) ? 'running' : 'stopped',
    lastSeenAt: iso(status?.at),
    lastSyncAt: iso(status?.lastSyncAt),
    lagSecs: status?.lastSyncAt ? Math.max(0, Math.round((Date.now() - status.lastSyncAt) / 100) / 10) : null,
    publishedBlocks: blocks.length,
    publishedBytes: blocks.reduce((n, e) => n + e.size, 0),
    publishedEvents: blocks.reduce((n, e) => n + e.count, 0),
    unpublishedBlocks: status?.unpublished.blocks ?? null,
    cacheBytes: status?.cache.bytes ?? null,
    cacheMaxBytes: status?.cache.maxBytes ?? null,
    cacheHitRate: status?.cache.hitRate ?? null,
    storeAvailable: status?.storeAvailable ?? null,
  };
}

/** Every node with anything in the store, sorted by id. */
export async function describeNodes(store: ObjectStore, self: string): Promise<NodeInfo[]> {
  const limit = new Limiter(8);
  const listing = await listNodes(store);
  const out = await Promise.all([...listing].map(([node, objs]) => limit.run(() => describe(store, self, node, objs))));
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Marks a node retired: it is gone for good, its blocks stay readable and under retention (the
 * sweep covers every manifest). Refused for the node answering and for a node whose status is
 * fresher than three of its sync intervals, unless that status says it stopped (stop it first). A retired node that starts again
 * takes the mark away.
 */
export async function retireNode(store: ObjectStore, self: string, id: string): Promise<NodeInfo> {
  const objs = (await listNodes(store)).get(id);
  if (!objs?.manifest && !objs?.status) throw new SvcError('not_found', `no node "${id}" in the shared store`);
  if (id === self)
    throw new SvcError(
      'node_running',
      `cannot retire node "${id}": it is the node answering; stop it and ask another node`,
    );
  const status = await readStatus(store, id);
  if (status && isRunning(status, Date.now())) {
    throw new SvcError(
      'node_running',
      `cannot retire node "${id}": it reported ${Math.round((Date.now() - status.at) / 1000)} s ago; stop it first`,
    );
  }
  await store.put(retiredKey(id), Buffer.from(JSON.stringify({ at: Date.now(), by: self })));
  return describe(store, self, id, { ...objs, retired: { key: retiredKey(id), size: 0, version: '' } });
}

/** At start: a node that was retired and runs again is back; its mark goes. Answers whether there was one. */
export async function unretire(store: ObjectStore, self: string): Promise<boolean> {
  if (!(await store.head(retiredKey(self)))) return false;
  await store.delete(retiredKey(self));
  return true;
}
