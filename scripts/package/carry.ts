import { createRequire } from 'node:module';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sha256 } from '../../src/packaged/extract.js';
import { MANIFEST_ASSET, type CarriedFile, type Manifest } from '../../src/packaged/manifest.js';

/**
 * What the single executable carries besides its main script, as SEA assets (asset name → file
 * to read at build time) and the manifest that lists them (src/packaged/manifest.ts).
 */

/** Files from this size on are carried gzip-compressed: libduckdb.so (70 MB → 24 MB). */
const GZIP_FROM_BYTES = 1 << 20;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The DuckDB addon and the library it links, from the installed linux-x64 bindings. */
function duckdbFiles(root: string): string[] {
  const require = createRequire(join(root, 'package.json'));
  const bindings = dirname(require.resolve('@duckdb/node-bindings'));
  const addon = createRequire(join(bindings, 'duckdb.js')).resolve('@duckdb/node-bindings-linux-x64/duckdb.node');
  return [addon, join(dirname(addon), 'libduckdb.so')];
}

export interface Carried {
  manifest: Manifest;
  /** For sea-config.json's `assets`. */
  assets: Record<string, string>;
}

/**
 * Lists the groups (`duckdb`: the addon; `ui`: the built web UI in opts.web) and the worker's
 * source; large files are gzipped into workDir, and the manifest is written there too.
 */
export function carry(
  root: string,
  workDir: string,
  opts: { version: string; web: string; workerSource: string },
): Carried {
  const assets: Record<string, string> = {};
  const add = (group: string, path: string, file: string): CarriedFile => {
    const bytes = readFileSync(file);
    const asset = `${group}/${path}`;
    const gzip = bytes.length >= GZIP_FROM_BYTES;
    if (gzip) {
      const packed = join(workDir, `${group}-${path.replaceAll('/', '-')}.gz`);
      writeFileSync(packed, gzipSync(bytes, { level: 6 }));
      assets[asset] = packed;
    } else assets[asset] = file;
    return { path, asset, sha256: sha256(bytes), size: bytes.length, gzip };
  };
  const web = opts.web;
  const groups = {
    duckdb: duckdbFiles(root).map((f) => add('duckdb', relative(dirname(f), f), f)),
    ui: walk(web).map((f) => add('ui', relative(web, f).replaceAll('\\', '/'), f)),
  };
  if (!groups.ui.some((f) => f.path === 'index.html')) throw new Error(`cannot package: no index.html in ${web}`);
  assets['decode-worker.cjs'] = opts.workerSource;
  const manifest: Manifest = { version: opts.version, groups, sources: { 'decode-worker': 'decode-worker.cjs' } };
  const manifestPath = join(workDir, MANIFEST_ASSET);
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  assets[MANIFEST_ASSET] = manifestPath;
  return { manifest, assets };
}
