import { closeSync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';

/** Makes a directory's entries durable (a new, renamed or deleted name survives a crash). */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a file's data durable before it is renamed into place. */
export function fsyncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
