import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Node's single-executable steps (Node 20): `node --experimental-sea-config` turns the main
 * script and the assets into a blob, postject writes the blob into a copy of this node binary as
 * the NODE_SEA_BLOB note, and flips the sentinel fuse so the binary runs it.
 */

/** The fuse Node checks at start to know a blob was injected (from Node's SEA documentation). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function run(what: string, cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error) throw new Error(`cannot ${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`cannot ${what}: ${cmd} exited with ${r.status}\n${r.stdout}${r.stderr}`);
}

export interface SeaOptions {
  main: string;
  assets: Record<string, string>;
  /** V8's code cache of the main script in the blob: a faster start (the script is compiled at build time). */
  useCodeCache: boolean;
}

/** Writes sea-config.json in workDir and prepares the blob from it; answers the blob's path. */
export function prepareBlob(workDir: string, opts: SeaOptions): string {
  const blob = join(workDir, 'sea.blob');
  const config = {
    main: opts.main,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: opts.useCodeCache,
    useSnapshot: false,
    assets: opts.assets,
  };
  const configPath = join(workDir, 'sea-config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  run('prepare the SEA blob', process.execPath, ['--experimental-sea-config', configPath], workDir);
  return blob;
}

/**
 * Copies this node binary to `out`, strips its debug symbols when `strip` is on the PATH (99 → 86
 * MB here; addons link against the dynamic symbols, which stay), and injects the blob.
 */
export function injectBlob(root: string, blob: string, out: string, opts: { strip: boolean }): void {
  rmSync(out, { force: true });
  copyFileSync(process.execPath, out);
  chmodSync(out, 0o755);
  if (opts.strip) run('strip the node binary', 'strip', [out], root);
  const postject = createRequire(join(root, 'package.json')).resolve('postject/dist/cli.js');
  run(
    'inject the SEA blob',
    process.execPath,
    [postject, out, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE],
    root,
  );
}

/** True when `strip` (binutils) runs here. */
export function haveStrip(): boolean {
  return spawnSync('strip', ['--version']).status === 0;
}
