import { Counter, Gauge, type Registry } from 'prom-client';

/** The shared store as one node sees it (SVC_STORE); absent when svc runs alone. */
export interface StoreState {
  /** Seconds since this node last read the other nodes' manifests; null before the first sync. */
  syncLagSecs: number | null;
  cacheHits: number;
  cacheMisses: number;
  cacheBytes: number;
  unpublishedBlocks: number;
}

/**
 * What the state gauges read at each scrape (server.ts wires it to storage and the cluster). Each
 * function is cheap (counters kept anyway, no disk scan but a stat per unsealed WAL segment).
 */
export interface StateSource {
  queue(): { queued: number; capacity: number };
  wal(): { bytes: number; unsealedSegments: number };
  /** This node's blocks per env (with a store, its own published and unpublished ones). */
  blocksByEnv(): Map<string, { blocks: number; bytes: number }>;
  store?: () => StoreState;
}

/**
 * Gauges of state, read from the source at each scrape (prom-client calls `collect` before it
 * writes a metric), never kept in step by hand. Per-env gauges are rebuilt at each scrape, so a
 * deleted env's series go away.
 */
export function watchState(registers: Registry[], src: StateSource): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge(
    'svc_writer_queue_events',
    'Events accepted and waiting in the writer queue for their WAL commit.',
    () => src.queue().queued,
  );
  gauge(
    'svc_writer_queue_capacity_events',
    'Capacity of the writer queue in events (SVC_BLOCK_QUEUE_CAP).',
    () => src.queue().capacity,
  );
  gauge(
    'svc_wal_bytes',
    'Bytes of write-ahead log segments not sealed into blocks yet, the open one included.',
    () => src.wal().bytes,
  );
  gauge(
    'svc_wal_unsealed_segments',
    'WAL segments not sealed into blocks yet, the open one included.',
    () => src.wal().unsealedSegments,
  );
  perEnv(registers, src);
  if (src.store) watchStore(registers, src.store);
}

/** Each gauge walks the catalog itself: a gauge's collect runs just before it is written, in registration order. */
function perEnv(registers: Registry[], src: StateSource): void {
  const byEnv = (name: string, help: string, value: (s: { blocks: number; bytes: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['env'],
      registers,
      collect() {
        this.reset();
        for (const [env, s] of src.blocksByEnv()) this.set({ env }, value(s));
      },
    });
  byEnv(
    'svc_storage_blocks',
    "Blocks on this node's disk, by environment (its own, published or not).",
    (s) => s.blocks,
  );
  byEnv('svc_storage_block_bytes', "Bytes of this node's blocks on disk, by environment.", (s) => s.bytes);
}

function watchStore(registers: Registry[], read: () => StoreState): void {
  new Gauge({
    name: 'svc_store_sync_lag_seconds',
    help: "Seconds since this node last read the other nodes' manifests (its view of their blocks lags by this much).",
    registers,
    collect() {
      const lag = read().syncLagSecs;
      if (lag === null) this.reset();
      else this.set(lag);
    },
  });
  new Gauge({
    name: 'svc_store_unpublished_blocks',
    help: 'Sealed blocks waiting on local disk to be published to the shared store.',
    registers,
    collect() {
      this.set(read().unpublishedBlocks);
    },
  });
  new Gauge({
    name: 'svc_store_cache_bytes',
    help: "Bytes of other nodes' blocks in this node's cache (SVC_CACHE_MAX_GB).",
    registers,
    collect() {
      this.set(read().cacheBytes);
    },
  });
  // the cache keeps its own running counts: the counters are set to them at each scrape
  const counter = (name: string, help: string, value: (s: StoreState) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value(read()));
      },
    });
  counter(
    'svc_store_cache_hits_total',
    'Blocks of other nodes a search found in the cache (hit rate: hits / (hits + misses)).',
    (s) => s.cacheHits,
  );
  counter(
    'svc_store_cache_misses_total',
    'Blocks of other nodes a search had to download from the shared store.',
    (s) => s.cacheMisses,
  );
}
