import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirStore } from '../../src/shared-store/dir-store.js';
import type { Manifest } from '../../src/storage/shared/manifest.js';
import type { SharedBlocks } from '../../src/storage/shared/cluster.js';
import type { StorageEngine } from '../../src/storage/engine.js';
import { MemoryControl, openStorage, type TestStorage } from './helpers.js';

/** A shared directory store and the nodes opened on it; close() closes them all and removes everything. */
export interface SharedDir {
  dir: string;
  store: DirStore;
  control: MemoryControl;
  /** Opens a node (its own data dir unless given); syncs only when told (syncNow), never on a timer. */
  node(
    id: string,
    o?: { dataDir?: string; env?: Record<string, string>; graceMs?: number; merge?: boolean },
  ): Promise<TestStorage>;
  manifest(id: string): Manifest;
  close(): Promise<void>;
}

export function sharedDir(): SharedDir {
  const dir = mkdtempSync(join(tmpdir(), 'svc-shared-blocks-'));
  const store = new DirStore(join(dir, 'store'));
  const control = new MemoryControl();
  const open: TestStorage[] = [];
  return {
    dir,
    store,
    control,
    async node(id, o = {}) {
      const s = await openStorage({
        dataDir: o.dataDir,
        control,
        store,
        env: { SVC_NODE_ID: id, SVC_BLOCK_SYNC_SECS: '3600', ...o.env },
        tuning: { merge: o.merge ?? false, graceMs: o.graceMs ?? 60_000 },
      });
      // a node stopped by its test is not closed again at the end
      const close = s.close.bind(s);
      const node: TestStorage = { ...s, close: async (c) => (open.splice(open.indexOf(node), 1), close(c)) };
      open.push(node);
      return node;
    },
    manifest(id) {
      return JSON.parse(readFileSync(join(dir, 'store', 'nodes', id, 'manifest.json'), 'utf8')) as Manifest;
    },
    async close() {
      for (const s of [...open]) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function cluster(engine: StorageEngine): SharedBlocks {
  const c = engine.cluster;
  if (!c) throw new Error('the engine was opened without a store');
  return c;
}
