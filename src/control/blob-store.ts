import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Where the control-plane document lives, as opaque bytes. The local implementation is a file in
 * the data dir (or a shared directory); an S3 implementation can hold it for several nodes.
 * Calls are made one at a time by ControlStore (it serialises writes); implementations need not lock.
 */
export interface ControlBlobStore {
  /** Human-readable location, for error messages. */
  readonly location: string;
  /** The stored bytes, or undefined when nothing has been stored yet. */
  read(): Promise<Buffer | undefined>;
  /** Replaces the stored bytes atomically: readers see the old or the new blob, never a mix. */
  write(data: Buffer): Promise<void>;
  /** A cheap token that changes whenever the blob changes (mtime and size, an ETag); undefined if absent. */
  stamp(): Promise<string | undefined>;
}

/** A file replaced atomically: write a temp file beside it, fsync, rename over, fsync the directory. */
export class FileBlobStore implements ControlBlobStore {
  readonly location: string;

  constructor(private readonly path: string) {
    this.location = path;
  }

  async read(): Promise<Buffer | undefined> {
    try {
      return readFileSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async write(data: Buffer): Promise<void> {
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    fsyncDir(dir);
  }

  async stamp(): Promise<string | undefined> {
    try {
      const st = statSync(this.path);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
