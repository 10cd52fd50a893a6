import { open } from 'node:fs/promises';

// Durability of files replaced by rename, for the stores that live in directories (the shared
// directory store, the control plane's file in the data dir).

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
