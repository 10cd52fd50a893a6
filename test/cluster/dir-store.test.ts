import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirStore } from '../../src/shared-store/dir-store.js';
import { describeCluster } from './cases.js';

/**
 * The cluster cases on a shared directory. SVC_STORE is a symbolic link to the real directory, so
 * an outage is one atomic rename: the link then points at a plain file and every call fails (as
 * when a mount goes away), and no node can half-see it or recreate the directory meanwhile.
 */
describeCluster('a shared directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-store-'));
  const real = join(dir, 'real');
  const link = join(dir, 'store');
  mkdirSync(real);
  writeFileSync(join(dir, 'not-a-directory'), '');
  symlinkSync(real, link);
  const point = (target: string) => {
    const tmp = join(dir, 'store.tmp');
    symlinkSync(target, tmp);
    renameSync(tmp, link);
  };
  return {
    env: { SVC_STORE: link },
    store: new DirStore(real),
    async outage() {
      point(join(dir, 'not-a-directory'));
      return async () => point(real);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
