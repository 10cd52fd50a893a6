import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { absent, fileVersion, readVersioned, syncDir, syncFile, writeTemp } from './files.js';
import {
  checkKey,
  StoreConflict,
  StoreUnavailable,
  type ObjectStore,
  type PutCondition,
  type StoreObject,
} from './object-store.js';

/** A lock older than this is taken to belong to a writer that died holding it. */
const STALE_LOCK_MS = 30_000;
const LOCK_WAIT_MS = 10_000;

/**
 * The shared store as a directory every node mounts (NFS and the like): objects are files written
 * to a temp name and renamed into place (atomic), versions are inode, size and modification time.
 * No file locking is assumed: a conditional put takes a lock file with link(2), which is atomic and
 * exclusive even over NFS, and a lock left by a writer that died is broken after 30 s.
 */
export class DirStore implements ObjectStore {
  readonly location: string;

  constructor(private readonly root: string) {
    this.location = root;
  }

  private path(key: string): string {
    return join(this.root, ...checkKey(key).split('/'));
  }

  async get(key: string): Promise<{ data: Buffer; version: string } | undefined> {
    const p = this.path(key);
    return this.io(key, () => readVersioned(p));
  }

  async head(key: string): Promise<StoreObject | undefined> {
    const st = await this.io(key, () => stat(this.path(key)).catch(absent));
    return st ? { key, size: st.size, version: fileVersion(st) } : undefined;
  }

  async put(key: string, data: Buffer, cond?: PutCondition): Promise<string> {
    const p = this.path(key);
    return this.io(key, async () => {
      await mkdir(dirname(p), { recursive: true });
      const tmp = await writeTemp(p, data);
      if (!cond) return this.place(tmp, p);
      const unlock = await this.lock(p, key);
      try {
        const st = await stat(p).catch(absent);
        if ('ifAbsent' in cond && st) throw new StoreConflict(key, 'it exists');
        if ('ifVersion' in cond && (!st || fileVersion(st) !== cond.ifVersion))
          throw new StoreConflict(key, st ? 'it changed' : 'it is gone');
        return await this.place(tmp, p);
      } catch (e) {
        await unlink(tmp).catch(() => {});
        throw e;
      } finally {
        await unlock();
      }
    });
  }

  async upload(key: string, path: string): Promise<StoreObject> {
    const p = this.path(key);
    return this.io(key, async () => {
      await mkdir(dirname(p), { recursive: true });
      const tmp = `${p}.${randomBytes(6).toString('hex')}.tmp`;
      await pipeline(createReadStream(path), createWriteStream(tmp, { mode: 0o600 }));
      await syncFile(tmp);
      const version = await this.place(tmp, p);
      return { key, size: (await stat(p)).size, version };
    });
  }

  async download(key: string, path: string): Promise<StoreObject> {
    const src = this.path(key);
    return this.io(key, async () => {
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      const st = await stat(src);
      await pipeline(createReadStream(src), createWriteStream(tmp));
      await rename(tmp, path);
      return { key, size: st.size, version: fileVersion(st) };
    });
  }

  async delete(key: string): Promise<void> {
    await this.io(key, () => rm(this.path(key), { force: true }));
  }

  async list(prefix: string): Promise<StoreObject[]> {
    const out: StoreObject[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(absent);
      for (const e of entries ?? []) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.isFile() && !e.name.endsWith('.tmp') && !e.name.endsWith('.lock')) {
          const key = relative(this.root, p).split(sep).join('/');
          if (key.startsWith(prefix)) {
            const st = await stat(p).catch(absent);
            if (st) out.push({ key, size: st.size, version: fileVersion(st) });
          }
        }
      }
    };
    // walk only the directory the prefix names, not the whole store
    const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await this.io(prefix, () => walk(dirPart ? join(this.root, ...dirPart.split('/')) : this.root));
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Renames a synced temp file over the target and syncs the directory; answers the new version. */
  private async place(tmp: string, p: string): Promise<string> {
    await rename(tmp, p);
    await syncDir(dirname(p));
    return fileVersion(await stat(p));
  }

  /** An exclusive lock on one key: link(2) of a fresh file to `<key>.lock` fails when it exists. */
  private async lock(p: string, key: string): Promise<() => Promise<void>> {
    const lockPath = `${p}.lock`;
    const mine = `${lockPath}.${randomBytes(6).toString('hex')}`;
    await writeFile(mine, String(Date.now()));
    const deadline = Date.now() + LOCK_WAIT_MS;
    try {
      for (;;) {
        try {
          await link(mine, lockPath);
          return () => unlink(lockPath).catch(() => {});
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
        const held = await stat(lockPath).catch(absent);
        if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) await unlink(lockPath).catch(() => {});
        if (Date.now() > deadline) throw new StoreConflict(key, 'another writer holds its lock');
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
      }
    } finally {
      await unlink(mine).catch(() => {});
    }
  }

  /** File-system errors other than conflicts and absence mean the store is not usable now. */
  private async io<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof StoreConflict) throw e;
      throw new StoreUnavailable(this.location, `${key}: ${(e as Error).message}`, { cause: e });
    }
  }
}
