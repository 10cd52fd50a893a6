import { mkdirSync, statSync } from 'node:fs';

/**
 * Everything svc writes is its owner's alone: the data dir holds every environment's events (and
 * `_svclogs`), and a file another local account can read bypasses RBAC. The process umask is the one
 * switch that also covers the files DuckDB, the WAL, the lookup Parquet writer and temp files create
 * with their own default modes (0666/0777 minus the umask): new files are 0600, new folders 0700.
 * Process-wide and for the life of the process, which is what a server wants.
 */
export function makeNewFilesPrivate(): void {
  // worker threads may not change the umask and share the process's; svc sets it once on the main thread
  process.umask(0o077);
}

/** Creates the data dir (and missing parents) as 0700. Answers its mode bits. */
export function createDataDir(dir: string): number {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return statSync(dir).mode & 0o777;
}

/** A warning when `mode` lets anyone but the owner in (svc never loosens or tightens an existing dir itself). */
export function openDirWarning(dir: string, mode: number): string | undefined {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return undefined;
  return `the data dir ${dir} is mode ${mode.toString(8).padStart(4, '0')}: other local accounts may read its logs; chmod 700 it`;
}
