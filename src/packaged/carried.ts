import { join } from 'node:path';
import { getAsset, getRawAsset, isSea } from 'node:sea';
import { gunzipSync } from 'node:zlib';
import { unpackDir } from '../config/unpack-dir.js';
import { extractVerified } from './extract.js';
import { groupDigest, MANIFEST_ASSET, type CarriedFile, type Manifest } from './manifest.js';

/**
 * What the single executable (`npm run package`, docs/packaging.md) carries, for the few modules
 * that read files beside the code when svc runs from node_modules: the version, the web UI, the
 * decode worker's code, the DuckDB addon. Outside the executable (node, tsx, tests) every function
 * here answers undefined and touches nothing, and the callers use their files as before.
 */

let manifest: Manifest | undefined;

function carried(): Manifest | undefined {
  if (!isSea()) return undefined;
  manifest ??= JSON.parse(getAsset(MANIFEST_ASSET, 'utf8')) as Manifest;
  return manifest;
}

function bytesOf(f: CarriedFile): Uint8Array {
  const raw = getRawAsset(f.asset);
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : new Uint8Array(raw);
  return f.gzip ? gunzipSync(bytes) : bytes;
}

/** svc's version as built into the executable. */
export function carriedVersion(): string | undefined {
  return carried()?.version;
}

/** JavaScript the executable carries by name (`decode-worker`), to run from memory. */
export function carriedSource(name: string): string | undefined {
  const m = carried();
  if (!m) return undefined;
  const asset = m.sources[name];
  if (!asset) throw new Error(`BUG: the executable carries no source "${name}"`);
  return getAsset(asset, 'utf8');
}

const folders = new Map<string, string>();

/**
 * The cache folder holding a group's files (`duckdb`, `ui`): `<cache>/<group>-<SHA-256 of the
 * group>`. On the first call in a process each file there is hashed and (re)written unless it
 * has the carried bytes (./extract.ts), so a tampered or truncated copy is never used.
 */
export function carriedFolder(group: string): string | undefined {
  const m = carried();
  if (!m) return undefined;
  const done = folders.get(group);
  if (done) return done;
  const files = m.groups[group];
  if (!files) throw new Error(`BUG: the executable carries no group "${group}"`);
  const dir = join(unpackDir(), `${group}-${groupDigest(files)}`);
  extractVerified(
    dir,
    files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: () => bytesOf(f) })),
  );
  folders.set(group, dir);
  return dir;
}

/**
 * Loads a native addon the executable carries: its group written to the cache and checked
 * (carriedFolder), then `file` dlopen'ed there; the libraries it links by $ORIGIN (libduckdb.so
 * beside duckdb.node) are in the same folder. The bundle calls it in place of
 * `require('@duckdb/node-bindings-linux-x64/duckdb.node')` (scripts/package/bundle.ts).
 */
export function loadCarriedAddon(group: string, file: string): unknown {
  const dir = carriedFolder(group);
  if (!dir)
    throw new Error(`cannot load the native addon ${group}/${file}: svc is not running as the single executable`);
  const module = { exports: {} as unknown };
  process.dlopen(module, join(dir, file));
  return module.exports;
}
