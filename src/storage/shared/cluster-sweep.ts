import type { ObjectStore } from '../../shared-store/object-store.js';
import type { RetentionReport } from '../retention.js';
import { isoOfUs } from '../partition.js';
import { listNodes } from './layout.js';
import { purgeRemoved, updateManifest, type ManifestEntry, type StoredManifest } from './manifest.js';

export interface ClusterSweepOptions {
  store: ObjectStore;
  /** Objects taken out of a manifest are deleted this long after. */
  graceMs: number;
  /** Whether a block of `env` whose newest event is at `maxUs` has outlived its env's retention (retention.ts expiryRule). */
  expired: (env: string, maxUs: number) => boolean;
}

/** What a sweep did: its report and every manifest it wrote (to apply at once on this node). */
export interface ClusterSweep {
  report: RetentionReport;
  changed: [node: string, stored: StoredManifest][];
}

/**
 * The cluster's retention sweep, run by the holder of the retention lease: for every node that
 * has a manifest — running, stopped, retired or gone for good — takes the entries past their
 * env's retention out of its manifest with a conditional write (the owner, publishing meanwhile,
 * re-reads and retries; so does this), and deletes the objects of entries taken out longer than
 * the grace period ago. The owner drops its local files when it sees its blocks gone.
 */
export async function sweepCluster(o: ClusterSweepOptions): Promise<ClusterSweep> {
  const t0 = Date.now();
  const taken: { node: string; e: ManifestEntry }[] = [];
  const changed: ClusterSweep['changed'] = [];
  for (const [node, objs] of await listNodes(o.store)) {
    if (!objs.manifest) continue;
    let expired: ManifestEntry[] = [];
    const r = await updateManifest(
      o.store,
      node,
      async (m) => {
        expired = m.blocks.filter((e) => o.expired(e.env, e.maxUs));
        const left = await purgeRemoved(o.store, m.removed, Date.now(), o.graceMs);
        if (expired.length === 0 && left.length === m.removed.length) return undefined;
        const out = new Set(expired.map((e) => e.name));
        const at = Date.now();
        return {
          ...m,
          blocks: m.blocks.filter((e) => !out.has(e.name)),
          removed: [...left, ...expired.map((e) => ({ name: e.name, key: e.key, sidecarKey: e.sidecarKey, at }))],
        };
      },
      { mustExist: true },
    );
    if (!r.changed) continue;
    changed.push([node, r.stored]);
    for (const e of expired) taken.push({ node, e });
  }
  const report: RetentionReport = {
    deletedBlocks: taken.length,
    deletedEvents: taken.reduce((n, t) => n + t.e.count, 0),
    blocks: taken.map(({ node, e }) => ({
      env: e.env,
      index: e.index,
      day: e.day,
      block: e.name,
      events: e.count,
      maxTime: isoOfUs(e.maxUs),
      node,
    })),
    tookMs: Date.now() - t0,
  };
  return { report, changed };
}
