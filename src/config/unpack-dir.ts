import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/**
 * Where the single executable writes the files it carries (the DuckDB addon, the web UI) to load
 * and serve them: SVC_UNPACK_DIR, else `$XDG_CACHE_HOME/svc`, else `~/.cache/svc`. Beside load.ts
 * and client.ts a reader of process.env, because the addon is loaded when the storage modules are,
 * before and beneath the server's Config (src/packaged/carried.ts, docs/packaging.md).
 */
export function unpackDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = nonEmpty(env.SVC_UNPACK_DIR);
  if (own) return resolve(own);
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  // the XDG spec: a relative XDG_CACHE_HOME is invalid and ignored
  const base = xdg && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), '.cache');
  return join(base, 'svc');
}
