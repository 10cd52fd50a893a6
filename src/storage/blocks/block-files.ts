import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fsyncFile, syncDir } from '../fsync.js';
import { Bloom } from './bloom.js';
import { parseSidecar, type BlockMeta } from './sidecar.js';
import { decodeMinuteCounts, totalOf, type MinuteCounts } from './minute-counts.js';

/** A block known to the catalog, with its parsed filter and paths. */
export interface Block {
  meta: BlockMeta;
  /** The Parquet file DuckDB reads: in the data dir, or (another node's block) in the local cache. */
  path: string;
  sidecar: string;
  /** The token filter of a block written before granules; undefined when it has granules. */
  bloom?: Bloom;
  /** Per-granule token filters and the rows each covers (token-filters.ts). */
  granules?: { rows: number; blooms: Bloom[] };
  /** Decoded `meta.minuteCounts`; undefined when the sidecar has none (or they do not add up to `count`). */
  minutes?: MinuteCounts;
  /** Set for another node's block (storage/shared/): `path` is filled from the store before a scan reads it. */
  remote?: RemoteRef;
}

/** Where another node's block lives in the shared store, and what its download must match. */
export interface RemoteRef {
  node: string;
  key: string;
  size: number;
  sha256: string;
}

export function blockDir(root: string, env: string, index: string, day: string): string {
  return join(root, encodeName(env), encodeName(index), day);
}

/** Env and index names become directory names; anything outside a safe set is %-escaped. */
export function encodeName(s: string): string {
  return s.replace(/[^a-zA-Z0-9_.-]|^\./g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

export function toBlock(meta: BlockMeta, path: string): Block {
  const minutes = decodeMinuteCounts(meta.minuteCounts);
  // counts that do not add up to the block's own count would answer wrongly: take the row path instead
  const trusted = minutes && totalOf(minutes) === meta.count ? minutes : undefined;
  const g = meta.granules;
  const granules = g && { rows: g.rows, blooms: g.b64.map((b64, i) => Bloom.fromBase64(b64, g.m[i], g.hash)) };
  const bloom = meta.bloom && Bloom.fromBase64(meta.bloom.b64, meta.bloom.m);
  return { meta, path, sidecar: sidecarPath(path), bloom, granules, minutes: trusted };
}

export function sidecarPath(parquet: string): string {
  return parquet.replace(/\.parquet$/, '.json');
}

/** Makes a block durable: the Parquet file is already at `tmpParquet`; rename it, then write the sidecar. */
export function publishBlock(tmpParquet: string, finalParquet: string, meta: BlockMeta): Block {
  fsyncFile(tmpParquet);
  renameSync(tmpParquet, finalParquet);
  const side = sidecarPath(finalParquet);
  const tmpSide = side + '.tmp';
  writeFileSync(tmpSide, JSON.stringify(meta));
  fsyncFile(tmpSide);
  renameSync(tmpSide, side);
  syncDir(dirname(finalParquet));
  return toBlock(meta, finalParquet);
}

/** Deletes a block: sidecar first, so a crash in between leaves only debris, never half a block. */
export function deleteBlockFiles(b: Block): void {
  rmSync(b.sidecar, { force: true });
  rmSync(b.path, { force: true });
}

/**
 * Every block under `root`; removes debris (tmp files, Parquet without sidecar) on the way. A block
 * whose sidecar cannot be read or fails its schema goes to `quarantine` (with the reason) and is
 * left out: one damaged file must not keep the service from starting.
 */
export function loadBlocks(root: string, quarantine: (parquet: string, reason: string) => void): Block[] {
  const out: Block[] = [];
  if (!existsSync(root)) return out;
  walk(root, (file) => {
    if (file.endsWith('.tmp')) return rmSync(file, { force: true });
    if (file.endsWith('.parquet')) {
      const side = sidecarPath(file);
      if (!existsSync(side)) return rmSync(file, { force: true });
      try {
        out.push(toBlock(parseSidecar(readFileSync(side, 'utf8')), file));
      } catch (e) {
        quarantine(file, (e as Error).message);
      }
    }
  });
  return out;
}

/** Moves a block's Parquet file and sidecar from under `root` to the same place under `to`. */
export function moveBlockFiles(parquet: string, root: string, to: string): string {
  const dest = join(to, relative(root, parquet));
  mkdirSync(dirname(dest), { recursive: true });
  renameSync(parquet, dest);
  if (existsSync(sidecarPath(parquet))) renameSync(sidecarPath(parquet), sidecarPath(dest));
  return dest;
}

function walk(dir: string, fn: (file: string) => void): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, fn);
    else fn(p);
  }
}
