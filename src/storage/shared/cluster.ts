import { join } from 'node:path';
import type { Logger } from 'pino';
import { SvcError } from '../../errors/svc-error.js';
import { StoreUnavailable, type ObjectStore } from '../../shared-store/object-store.js';
import type { Block } from '../blocks/block-files.js';
import type { ProblemReporter } from '../problems.js';
import { expiryRule, type RetentionReport } from '../retention.js';
import { BlockCache, type CacheStats } from './block-cache.js';
import { sweepCluster } from './cluster-sweep.js';
import { RETENTION_LEASE } from './layout.js';
import { Lease } from './lease.js';
import { describeNodes, retireNode, unretire, writeStatus, type NodeStatus } from './nodes.js';
import { StoreHealth } from './store-health.js';
import { Syncer } from './syncer.js';
import type { ClusterHandle, LocalBlocks, NodeInfo, StoreHealthInfo } from './types.js';
import { Uploader } from './uploader.js';

export interface SharedBlocksOptions {
  store: ObjectStore;
  node: string;
  dataDir: string;
  syncSecs: number;
  cacheMaxBytes: number;
  local: LocalBlocks;
  problems: ProblemReporter;
  log: Logger;
  /** Days an env keeps data (retention.ts retentionDays), and the clock retention reads. */
  daysOf: (env: string) => number | undefined;
  now: () => number;
  /** After every publish: the engine may now merge the blocks published. */
  onPublished: () => void;
  /** Tests: the grace period instead of the default (several sync intervals). */
  graceMs?: number;
}

/** How long a forced sweep waits for another node's sweep to finish. */
const LEASE_WAIT_MS = 15_000;

/**
 * Several nodes on one store (docs/decisions/0011-shared-store-several-nodes.md;
 * docs/storage.md, "Several nodes"): this node's uploader,
 * its syncer of the other nodes' manifests, its cache of their block files, the cluster's
 * retention sweep and the operations on nodes. The engine asks it for the remote blocks to plan
 * over and to hold the ones a scan reads; everything else runs on the sync timer.
 */
export class SharedBlocks implements ClusterHandle {
  readonly cache: BlockCache;
  /** Objects taken out of a manifest wait this long before they are deleted: several sync intervals, so no reader mid-sync misses them. */
  readonly graceMs: number;
  private readonly storeHealth: StoreHealth;
  private readonly uploader: Uploader;
  private readonly syncer: Syncer;
  private readonly lease: Lease;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  private constructor(private readonly o: SharedBlocksOptions) {
    this.graceMs = o.graceMs ?? Math.max(5_000, 6 * o.syncSecs * 1000);
    this.storeHealth = new StoreHealth(o.store.location, o.problems, o.log);
    this.cache = BlockCache.open(join(o.dataDir, 'cache'), o.cacheMaxBytes, o.store);
    this.uploader = new Uploader({
      store: o.store,
      node: o.node,
      local: o.local,
      health: this.storeHealth,
      graceMs: this.graceMs,
      log: o.log,
      onPublished: o.onPublished,
    });
    this.syncer = new Syncer({ store: o.store, self: o.node, cache: this.cache, problems: o.problems, log: o.log });
    this.lease = new Lease(o.store, RETENTION_LEASE, o.node, Math.max(60_000, this.graceMs));
  }

  /**
   * Reconciles this node's blocks with its manifest (publishing what a crash left unpublished) and
   * syncs once before the node serves, then every SVC_BLOCK_SYNC_SECS. A store that does not
   * answer is reported and retried; start-up goes on.
   */
  static async open(o: SharedBlocksOptions): Promise<SharedBlocks> {
    const s = new SharedBlocks(o);
    try {
      if (await unretire(o.store, o.node))
        o.log.warn({ node: o.node }, 'this node was retired and runs again: the mark is taken away');
    } catch (err) {
      s.storeHealth.failed(err, 'starting');
    }
    await s.uploader.kick();
    await s.tick();
    s.timer = setInterval(() => void s.tick(), o.syncSecs * 1000);
    s.timer.unref();
    return s;
  }

  /** Syncs now instead of at the next tick (tests, benchmarks); a store outage is reported, not thrown. */
  async syncNow(): Promise<void> {
    await this.ticking;
    await this.tick();
  }

  /** Other nodes' published blocks, for the scan planner and the summaries. */
  remoteBlocks(): Iterable<Block> {
    return this.syncer.blocks.values();
  }

  isPublished(name: string): boolean {
    return this.uploader.isPublished(name);
  }

  /** A seal or merge committed: publish soon. */
  kick(): void {
    void this.uploader.kick();
  }

  /** Publishes what is sealed now (flush, benchmarks); a store outage is reported, not thrown. */
  publish(): Promise<void> {
    return this.uploader.kick();
  }

  /** Pins the remote blocks among `blocks` (call in the planning step) and fetches the ones not cached; answers the release. */
  hold(blocks: Block[]): Promise<() => void> {
    const remote = blocks.flatMap((b) => (b.remote ? [b.remote] : []));
    return remote.length ? this.cache.hold(remote) : Promise.resolve(() => {});
  }

  /**
   * The cluster's retention sweep under the lease; applies what it changed on this node at once.
   * A forced sweep (POST /api/admin/gc) waits a little for another node's, then takes the lease,
   * and throws SvcError storage_unavailable when it cannot. A timer sweep answers undefined when
   * another node holds the lease or the store does not answer (logged).
   */
  async sweep(forced: boolean): Promise<RetentionReport | undefined> {
    return this.sweepUnderLease(forced).catch((err: unknown) => {
      if (forced) throw err;
      this.o.log.warn({ err }, 'retention sweep skipped');
      return undefined;
    });
  }

  private async sweepUnderLease(forced: boolean): Promise<RetentionReport | undefined> {
    // what is sealed here is published first, so the sweep sees it like an ever-published block
    await this.uploader.kick();
    try {
      if (!(await this.takeLease(forced))) return undefined;
      try {
        const { report, changed } = await sweepCluster({
          store: this.o.store,
          graceMs: this.graceMs,
          expired: expiryRule(this.o.now(), this.o.daysOf),
        });
        for (const [node, stored] of changed)
          await (node === this.o.node ? this.uploader.kick() : this.syncer.apply(node, stored));
        return report;
      } finally {
        await this.lease.release();
      }
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      this.storeHealth.failed(err, 'sweeping');
      throw new SvcError('storage_unavailable', `cannot run the retention sweep: ${err.message}`, {
        cause: err,
        retryAfterSecs: 5,
      });
    }
  }

  private async takeLease(forced: boolean): Promise<boolean> {
    const deadline = Date.now() + LEASE_WAIT_MS;
    for (;;) {
      if (await this.lease.take()) return true;
      if (!forced) return false;
      if (Date.now() > deadline) {
        throw new SvcError(
          'storage_unavailable',
          `the retention sweep is running on node ${this.lease.heldBy ?? '(another)'}; try again shortly`,
          { retryAfterSecs: 5 },
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  health(): StoreHealthInfo {
    const h = this.storeHealth;
    return {
      available: h.available,
      ...(h.since !== undefined ? { downSince: new Date(h.since).toISOString(), error: h.error } : {}),
      unpublishedBlocks: this.uploader.unpublished().blocks,
      lastSyncAt: this.syncer.lastSyncAt ? new Date(this.syncer.lastSyncAt).toISOString() : null,
    };
  }

  nodes(): Promise<NodeInfo[]> {
    return this.storeCall(() => describeNodes(this.o.store, this.o.node));
  }

  retire(id: string): Promise<NodeInfo> {
    return this.storeCall(() => retireNode(this.o.store, this.o.node, id));
  }

  cacheStats(): CacheStats {
    return this.cache.stats();
  }

  /** Published blocks of this node and of the others, for stats and benchmarks. */
  counts(): { published: number; remote: number; remoteNodes: number } {
    return {
      published: this.uploader.manifest()?.blocks.length ?? 0,
      remote: this.syncer.blocks.size,
      remoteNodes: this.syncer.manifests().size,
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    await this.uploader.close();
    // so an operator can retire it at once; a node killed shows as stopped after three sync intervals
    await writeStatus(this.o.store, { ...this.status(), stoppedAt: Date.now() }).catch(() => undefined);
  }

  /** Every SVC_BLOCK_SYNC_SECS: the other nodes' manifests, a look at our own (the uploader), our status. */
  private tick(): Promise<void> {
    this.ticking ??= this.syncAndReport().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async syncAndReport(): Promise<void> {
    void this.uploader.kick();
    try {
      await this.syncer.sync();
      this.storeHealth.ok();
      await writeStatus(this.o.store, this.status());
    } catch (err) {
      if (err instanceof StoreUnavailable) this.storeHealth.failed(err, 'syncing with the other nodes');
      else this.o.log.error({ err }, 'cannot sync with the other nodes');
    }
  }

  private status(): NodeStatus {
    const c = this.cache.stats();
    return {
      v: 1,
      node: this.o.node,
      at: Date.now(),
      startedAt: this.startedAt,
      syncSecs: this.o.syncSecs,
      lastSyncAt: this.syncer.lastSyncAt ?? null,
      unpublished: this.uploader.unpublished(),
      cache: { bytes: c.bytes, maxBytes: c.maxBytes, hitRate: c.hits + c.misses ? c.hits / (c.hits + c.misses) : null },
      storeAvailable: this.storeHealth.available,
    };
  }

  /** Operator calls: a store that does not answer is the caller's 503, not a 500. */
  private async storeCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      throw new SvcError('storage_unavailable', err.message, { cause: err, retryAfterSecs: 5 });
    }
  }
}
