import type { Logger } from 'pino';
import { StoreUnavailable, type ObjectStore } from '../../shared-store/object-store.js';
import { toBlock, type Block } from '../blocks/block-files.js';
import { parseSidecar } from '../blocks/sidecar.js';
import type { ProblemReporter } from '../problems.js';
import type { BlockCache } from './block-cache.js';
import { Limiter } from './checksum.js';
import { listNodes, manifestKey, type NodeObjects } from './layout.js';
import { parseManifest, type Manifest, type ManifestEntry, type StoredManifest } from './manifest.js';

export interface SyncerOptions {
  store: ObjectStore;
  /** This node: its own manifest is never read here (its blocks are local). */
  self: string;
  cache: BlockCache;
  problems: ProblemReporter;
  log: Logger;
}

/** Sidecars fetched at once while a manifest is applied. */
const PARALLEL_SIDECARS = 8;

/**
 * The other nodes' published blocks, kept in step with their manifests. A sync lists `nodes/`
 * (one call: every manifest's version), reads only the manifests whose version changed, fetches
 * the sidecars of the blocks new to it (small: the scan planner prunes remote blocks by them like
 * local ones; the Parquet files come later, through the cache, when a scan wants them), and
 * applies each manifest in one synchronous step: a merge's swap, made in one manifest write, is
 * seen whole. Syncs and applies run one at a time.
 */
export class Syncer {
  /** Other nodes' published blocks by name; `path` is where the cache keeps the file. */
  readonly blocks = new Map<string, Block>();
  private readonly nodes = new Map<string, StoredManifest>();
  private readonly fetches = new Limiter(PARALLEL_SIDECARS);
  private chain: Promise<unknown> = Promise.resolve();
  lastSyncAt: number | undefined;
  lastSyncMs: number | undefined;

  constructor(private readonly o: SyncerOptions) {}

  /** One sync; answers the listing of `nodes/` it was made from. Throws StoreUnavailable when the store does not answer. */
  sync(): Promise<Map<string, NodeObjects>> {
    return this.serial(async () => {
      const t0 = Date.now();
      const listing = await listNodes(this.o.store);
      for (const [node, objs] of listing) {
        if (node === this.o.self || !objs.manifest || this.nodes.get(node)?.version === objs.manifest.version) continue;
        await this.syncNode(node);
      }
      // a manifest missing from the listing is never taken as "no blocks": manifests are never
      // deleted, so that is a store that lost its mount; its blocks stay until it answers again
      this.lastSyncAt = Date.now();
      this.lastSyncMs = this.lastSyncAt - t0;
      return listing;
    });
  }

  /** A manifest someone here just wrote (the retention sweep): applied now, not at the next sync. */
  apply(node: string, stored: StoredManifest): Promise<void> {
    if (node === this.o.self) return Promise.resolve();
    return this.serial(() => this.applyManifest(node, stored));
  }

  /** The manifests as last applied, by node. */
  manifests(): Map<string, Manifest> {
    return new Map([...this.nodes].map(([n, s]) => [n, s.manifest]));
  }

  private async syncNode(node: string): Promise<void> {
    const key = manifestKey(node);
    try {
      const got = await this.o.store.get(key);
      if (got) await this.applyManifest(node, { manifest: parseManifest(got.data, key), version: got.version });
    } catch (err) {
      if (err instanceof StoreUnavailable) throw err;
      // one node's damaged manifest must not stop reading the others
      this.o.log.error({ err, node }, "cannot read a node's manifest");
      this.o.problems.report(
        'block_unreadable',
        `cannot read the manifest of node ${node}: ${(err as Error).message}; its blocks are not searchable here`,
        key,
      );
    }
  }

  private async applyManifest(node: string, stored: StoredManifest): Promise<void> {
    const had = this.nodes.get(node)?.manifest.blocks ?? [];
    const want = new Set(stored.manifest.blocks.map((e) => e.name));
    const added = stored.manifest.blocks.filter((e) => !this.blocks.has(e.name));
    const fetched = await Promise.all(added.map((e) => this.fetches.run(() => this.fetchBlock(node, e))));
    // one synchronous step: a scan plans over this node's blocks before or after the change, never half
    for (const b of fetched) if (b) this.blocks.set(b.meta.name, b);
    for (const e of had) {
      const b = this.blocks.get(e.name);
      if (want.has(e.name) || !b) continue;
      this.blocks.delete(e.name);
      this.o.cache.forget(e.key);
    }
    this.nodes.set(node, stored);
  }

  /** A block's catalog entry from its sidecar; undefined (reported) when the sidecar is missing or damaged. */
  private async fetchBlock(node: string, e: ManifestEntry): Promise<Block | undefined> {
    const got = await this.o.store.get(e.sidecarKey);
    try {
      if (!got) throw new Error('the sidecar is missing');
      const meta = parseSidecar(got.data.toString('utf8'));
      if (meta.name !== e.name || meta.count !== e.count)
        throw new Error(`the sidecar describes ${meta.name} (${meta.count} events)`);
      return {
        ...toBlock(meta, this.o.cache.pathFor(e.key)),
        remote: { node, key: e.key, size: e.size, sha256: e.sha256 },
      };
    } catch (err) {
      this.o.problems.report(
        'block_unreadable',
        `block ${e.name} of node ${node} (${e.count} events) is not searchable here: ${(err as Error).message}`,
        e.sidecarKey,
      );
      return undefined;
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn);
    this.chain = p.catch(() => undefined);
    return p;
  }
}
