import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';

// Files replaced by rename, for the stores that live in directories (the shared directory store,
// the control plane's file in a lone node's data dir): versions, reads, temp files, durability.

/** A file's version: changes whenever a rename puts another file under its name. */
export function fileVersion(st: { ino: number; size: number; mtimeMs: number }): string {
  return `${st.ino}-${st.size}-${Math.round(st.mtimeMs * 1000)}`;
}

/** For `.catch`: a missing file is undefined, any other error is thrown again. */
export function absent(e: unknown): undefined {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw e;
}

/** A file's bytes and version, or undefined when it is missing. */
export async function readVersioned(p: string): Promise<{ data: Buffer; version: string } | undefined> {
  // one open file for both: a rename landing meanwhile replaces the name, not what we read
  const fh = await open(p, 'r').catch(absent);
  if (!fh) return undefined;
  try {
    const st = await fh.stat();
    return { data: await fh.readFile(), version: fileVersion(st) };
  } finally {
    await fh.close();
  }
}

/** Writes `data` to a new temp file beside `p` (mode 0600) and makes it durable; answers its path, to rename over `p`. */
export async function writeTemp(p: string, data: Buffer): Promise<string> {
  const tmp = `${p}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** Makes a file's bytes durable before it is renamed into place. */
export async function syncFile(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Makes a directory's new names durable; some file systems refuse fsync on a directory, and the rename is atomic all the same. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // see above: nothing more to do
  }
}
