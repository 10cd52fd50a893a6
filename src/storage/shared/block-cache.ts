import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../../errors/svc-error.js';
import type { ObjectStore } from '../../shared-store/object-store.js';
import type { RemoteRef } from '../blocks/block-files.js';
import { fileChecksum, Limiter } from './checksum.js';

/** Downloads running at once; more would only share the same link. */
const PARALLEL_DOWNLOADS = 4;

interface Entry {
  key: string;
  path: string;
  size: number;
  /** ms of the last release, for LRU. */
  lastUsed: number;
  /** Scans reading the file now: a pinned file is never evicted. */
  pins: number;
  present: boolean;
  /** The one download of this block, which every scan that wants it awaits. */
  loading?: Promise<void>;
  /** The block left the catalog: delete the file once the last scan releases it. */
  forgotten?: boolean;
}

export interface CacheStats {
  bytes: number;
  maxBytes: number;
  files: number;
  /** Blocks a scan found cached (or already being downloaded by another scan), and those it had to download. */
  hits: number;
  misses: number;
  downloadedBytes: number;
}

/**
 * Other nodes' block files on local disk, at most `maxBytes` (SVC_CACHE_MAX_GB), least recently
 * used evicted first. A download goes to `<file>.part`, is checked against the manifest's size and
 * SHA-256, then renamed into place: a file in the cache is always a verified one. Single JS thread:
 * the maps need no locking.
 */
export class BlockCache {
  private readonly entries = new Map<string, Entry>();
  private readonly downloads = new Limiter(PARALLEL_DOWNLOADS);
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private downloadedBytes = 0;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly store: ObjectStore,
  ) {}

  /** Indexes the files earlier runs downloaded (verified then); partial downloads are removed. */
  static open(dir: string, maxBytes: number, store: ObjectStore): BlockCache {
    const cache = new BlockCache(dir, maxBytes, store);
    mkdirSync(dir, { recursive: true });
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.part') || p.endsWith('.tmp')) rmSync(p, { force: true });
        else {
          const st = statSync(p);
          const key = p
            .slice(dir.length + 1)
            .split(/[\\/]/)
            .join('/');
          cache.entries.set(key, { key, path: p, size: st.size, lastUsed: st.mtimeMs, pins: 0, present: true });
          cache.bytes += st.size;
        }
      }
    };
    walk(dir);
    return cache;
  }

  /** The local file a block of this key is read from. */
  pathFor(key: string): string {
    return join(this.dir, ...key.split('/'));
  }

  /**
   * Pins the blocks a scan reads (in the caller's synchronous step: nothing is evicted or deleted
   * from here on), then downloads the ones not cached, one download per block however many scans
   * want it. Answers the release, which the scan calls when it settles. Throws SvcError
   * storage_unavailable (pins released) when a block cannot be fetched or does not check out.
   */
  async hold(refs: RemoteRef[]): Promise<() => void> {
    const entries = refs.map((r) => this.pin(r));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const e of entries) this.unpin(e);
    };
    try {
      await Promise.all(entries.map((e, i) => this.ensure(e, refs[i])));
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /** The block left the catalog: its file goes now, or when the last scan reading it releases it. */
  forget(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    if (e.pins > 0 || e.loading) e.forgotten = true;
    else this.remove(e);
  }

  stats(): CacheStats {
    return {
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      files: this.entries.size,
      hits: this.hits,
      misses: this.misses,
      downloadedBytes: this.downloadedBytes,
    };
  }

  private pin(r: RemoteRef): Entry {
    let e = this.entries.get(r.key);
    if (!e) {
      e = { key: r.key, path: this.pathFor(r.key), size: r.size, lastUsed: Date.now(), pins: 0, present: false };
      this.entries.set(r.key, e);
    }
    e.pins++;
    e.forgotten = false;
    return e;
  }

  private unpin(e: Entry): void {
    e.pins--;
    e.lastUsed = Date.now();
    if (e.pins > 0 || e.loading) return;
    if (!e.present) this.entries.delete(e.key);
    else if (e.forgotten) this.remove(e);
    else if (this.bytes > this.maxBytes) this.makeRoom(0);
  }

  private ensure(e: Entry, ref: RemoteRef): Promise<void> {
    if (e.present) {
      this.hits++;
      return Promise.resolve();
    }
    if (e.loading) {
      this.hits++;
      return e.loading;
    }
    this.misses++;
    e.loading = this.downloads.run(() => this.download(e, ref)).finally(() => (e.loading = undefined));
    return e.loading;
  }

  private async download(e: Entry, ref: RemoteRef): Promise<void> {
    this.makeRoom(ref.size);
    const part = `${e.path}.part`;
    try {
      await this.store.download(ref.key, part);
      const got = await fileChecksum(part);
      if (got.size !== ref.size || got.sha256 !== ref.sha256) {
        throw new Error(
          `got ${got.size} bytes with SHA-256 ${got.sha256.slice(0, 12)}…, the manifest says ${ref.size} bytes with ${ref.sha256.slice(0, 12)}…`,
        );
      }
      renameSync(part, e.path);
    } catch (err) {
      rmSync(part, { force: true });
      throw new SvcError(
        'storage_unavailable',
        `cannot read block ${ref.key} of node ${ref.node} from the shared store: ${(err as Error).message}`,
        { cause: err, retryAfterSecs: 5 },
      );
    }
    e.present = true;
    e.size = ref.size;
    this.bytes += ref.size;
    this.downloadedBytes += ref.size;
  }

  /** Evicts unpinned files, least recently used first, until `need` more bytes fit (pinned files may keep it over). */
  private makeRoom(need: number): void {
    if (this.bytes + need <= this.maxBytes) return;
    const victims = [...this.entries.values()]
      .filter((e) => e.present && e.pins === 0 && !e.loading)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const v of victims) {
      if (this.bytes + need <= this.maxBytes) break;
      this.remove(v);
    }
  }

  private remove(e: Entry): void {
    if (e.present && existsSync(e.path)) rmSync(e.path, { force: true });
    if (e.present) this.bytes -= e.size;
    this.entries.delete(e.key);
  }
}
