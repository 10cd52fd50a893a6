import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A file that must be on disk with exactly these bytes: its path under the folder, its SHA-256, and its bytes on demand. */
export interface WantedFile {
  path: string;
  sha256: string;
  /** Called only when the file must be (re)written; the bytes must hash to sha256. */
  bytes: () => Uint8Array;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** SHA-256 of a file, read 1 MiB at a time (libduckdb.so is 70 MB: no need to hold it); undefined when unreadable. */
export function fileSha256(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
    return h.digest('hex');
  } catch {
    return undefined; // a folder where a file should be, a read error: written anew
  } finally {
    closeSync(fd);
  }
}

/** Renames over the target (atomic for a file); a folder in the way is removed first. */
function replace(tmp: string, target: string): void {
  try {
    renameSync(tmp, target);
  } catch {
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  }
}

/**
 * Makes `dir` hold each wanted file with exactly its bytes, and answers the paths it (re)wrote.
 * Every existing file is hashed and kept only when its SHA-256 is the wanted one: a missing,
 * truncated or altered file is written anew, to a temporary name then renamed, so a process
 * starting at the same time never loads half a file (two may both write; either copy is whole).
 * The folders are created private to the user (0700): a library loaded from them must not be
 * replaceable by others.
 */
export function extractVerified(dir: string, files: readonly WantedFile[]): string[] {
  const written: string[] = [];
  for (const f of files) {
    const target = join(dir, f.path);
    if (fileSha256(target) === f.sha256) continue;
    const bytes = f.bytes();
    if (sha256(bytes) !== f.sha256)
      throw new Error(`BUG: carried file ${f.path} does not match its SHA-256 in the manifest`);
    write(target, bytes);
    written.push(f.path);
  }
  return written;
}

/** Writes a file whole or not at all: a temporary name in the same folder, then a rename. */
function write(target: string, bytes: Uint8Array): void {
  const tmp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, bytes, { mode: 0o600 });
    replace(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(
      `cannot write ${target}: ${e instanceof Error ? e.message : String(e)} (SVC_UNPACK_DIR names another folder)`,
      { cause: e },
    );
  }
}
