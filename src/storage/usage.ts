import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StateSource } from '../metrics/state.js';
import type { Block } from './blocks/block-files.js';
import type { StorageEngine } from './engine.js';

/**
 * What the metrics' state gauges read of storage at each scrape (metrics/state.ts): the writer
 * queue, the WAL's segment files (a handful: sealed ones are removed), one walk of this node's
 * blocks and, with a store, the cluster's sync time and cache counts. Cheap enough for every scrape.
 */
export function storageState(engine: StorageEngine, dataDir: string): StateSource {
  const shared = engine.cluster;
  return {
    queue: () => engine.writer.queueDepth(),
    wal: () => ({ bytes: walBytes(join(dataDir, 'wal')), unsealedSegments: engine.stats().liveSegments }),
    blocksByEnv: () => blocksByEnv(engine.listBlocks()),
    store: shared
      ? () => {
          const h = shared.health();
          const c = shared.cacheStats();
          return {
            syncLagSecs: h.lastSyncAt === null ? null : Math.max(0, (Date.now() - Date.parse(h.lastSyncAt)) / 1000),
            unpublishedBlocks: h.unpublishedBlocks,
            cacheBytes: c.bytes,
            cacheHits: c.hits,
            cacheMisses: c.misses,
          };
        }
      : undefined,
  };
}

function blocksByEnv(blocks: Iterable<Block>): Map<string, { blocks: number; bytes: number }> {
  const byEnv = new Map<string, { blocks: number; bytes: number }>();
  for (const b of blocks) {
    const e = byEnv.get(b.meta.env) ?? { blocks: 0, bytes: 0 };
    e.blocks++;
    e.bytes += b.meta.bytes;
    byEnv.set(b.meta.env, e);
  }
  return byEnv;
}

/** Bytes of the WAL's segment files (`<seq>.ndjson`): those not sealed and removed yet, the open one included. */
function walBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    if (!n.endsWith('.ndjson')) continue;
    try {
      total += statSync(join(dir, n)).size;
    } catch {
      // sealed and removed between the listing and the stat
    }
  }
  return total;
}
