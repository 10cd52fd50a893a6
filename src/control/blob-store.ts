import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { absent, fileVersion, readVersioned, syncDir, writeTemp } from '../shared-store/files.js';
import { StoreConflict } from '../shared-store/object-store.js';

/** The stored bytes of the control plane and the version they were read at. */
export interface StoredBlob {
  data: Buffer;
  version: string;
}

/**
 * Where the control-plane document lives, as opaque bytes: a file in the data dir (one node), or an
 * object in the shared store (several nodes: object-blob-store.ts).
 * Calls are made one at a time by ControlStore (it serialises its own writes); other nodes may
 * write at any moment, which the conditional `write` detects.
 */
export interface ControlBlobStore {
  /** Human-readable location, for error messages. */
  readonly location: string;
  /** Several nodes share this blob: start-up refuses what a lone node would repair (a plain document). */
  readonly shared: boolean;
  /** The stored bytes and their version, or undefined when nothing has been stored yet. */
  read(): Promise<StoredBlob | undefined>;
  /**
   * Replaces the stored bytes atomically (readers see the old or the new blob, never a mix) if the
   * blob is still at `expected`, or, with `expected` undefined, if there is none yet. Answers the new
   * version. Throws StoreConflict when the blob changed meanwhile (nothing written) and
   * StoreUnavailable when the store cannot be reached.
   */
  write(data: Buffer, expected: string | undefined): Promise<string>;
  /** The current version (a stat, a HEAD: cheap), or undefined when absent. */
  version(): Promise<string | undefined>;
}

/**
 * A file in the data dir of a lone node, replaced atomically: a temp file beside it, fsync, rename
 * over, fsync the directory. The condition of `write` is checked just before the rename but not
 * enforced against a concurrent writer: the file belongs to one node, whose ControlStore writes
 * one change at a time.
 */
export class FileBlobStore implements ControlBlobStore {
  readonly location: string;
  readonly shared = false;

  constructor(private readonly path: string) {
    this.location = path;
  }

  read(): Promise<StoredBlob | undefined> {
    return readVersioned(this.path);
  }

  async write(data: Buffer, expected: string | undefined): Promise<string> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true });
    const tmp = await writeTemp(this.path, data);
    const current = await this.version();
    if (current !== expected) {
      await unlink(tmp).catch(() => {});
      throw new StoreConflict(
        this.path,
        current === undefined ? 'it is gone' : expected === undefined ? 'it exists' : 'it changed',
      );
    }
    await rename(tmp, this.path);
    await syncDir(dir);
    return fileVersion(await stat(this.path));
  }

  async version(): Promise<string | undefined> {
    const st = await stat(this.path).catch(absent);
    return st ? fileVersion(st) : undefined;
  }
}
