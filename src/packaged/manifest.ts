import { createHash } from 'node:crypto';

/**
 * The single executable's table of contents (SEA asset `manifest.json`), written by
 * scripts/package/build.ts and read by ./carried.ts. Plain data: the build script and the
 * executable share these types and groupDigest, nothing else.
 */

/** One file the executable carries, to be written into its group's folder of the cache. */
export interface CarriedFile {
  /** Its path inside the group's folder: `duckdb.node`, `assets/index-3f2a9c.js`. */
  path: string;
  /** The SEA asset holding its bytes. */
  asset: string;
  /** SHA-256 (hex) of the bytes as written to disk, after any gunzip. */
  sha256: string;
  size: number;
  /** The asset is gzip-compressed (the large ones: libduckdb.so shrinks from 70 to 24 MB). */
  gzip: boolean;
}

export interface Manifest {
  /** svc's version (package.json at build time): `svc --version` inside the executable. */
  version: string;
  /**
   * Files written together into one folder of the cache, named by the group and its digest:
   * `duckdb` (duckdb.node and the libduckdb.so it links through its $ORIGIN run path) and `ui`
   * (the built web UI).
   */
  groups: Record<string, CarriedFile[]>;
  /** JavaScript run from memory, by name → SEA asset: `decode-worker` (the decode worker's bundle). */
  sources: Record<string, string>;
}

export const MANIFEST_ASSET = 'manifest.json';

/** SHA-256 over a group's paths and hashes: its folder's name, so a new build never reuses an old folder. */
export function groupDigest(files: readonly CarriedFile[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) h.update(`${f.path}\0${f.sha256}\n`);
  return h.digest('hex');
}
