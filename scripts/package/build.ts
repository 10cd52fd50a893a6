/**
 * `npm run package`: builds dist/svc-linux-x64, one executable holding Node, svc, the web UI and
 * the DuckDB addon (docs/packaging.md). Steps: the web UI (Vite), the two bundles (esbuild), the
 * carried files and their manifest, the SEA blob, the injection into a copy of this node; then
 * the executable is asked its version as a smoke check.
 *
 *   npm run package [-- --out FILE] [--work DIR] [--no-code-cache] [--no-strip]
 *
 * --out: the executable (default dist/svc-linux-x64); --work: the intermediate files (default
 * dist/package; the web UI is built there too, so a build never empties the dist/web a running
 * svc or test serves).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from './bundle.js';
import { carry } from './carry.js';
import { haveStrip, injectBlob, prepareBlob } from './sea.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    work: { type: 'string' },
    'no-code-cache': { type: 'boolean', default: false },
    'no-strip': { type: 'boolean', default: false },
  },
});

async function step<T>(what: string, f: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  console.log(`package: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return v;
}

function buildWeb(outDir: string): void {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(
    process.execPath,
    [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      // the production build of React and the UI, even when a test (NODE_ENV=test) runs this
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  if (r.status !== 0) throw new Error('cannot package: the web UI build failed');
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `cannot package on ${process.platform}-${process.arch}: the executable is built for linux-x64 by a linux-x64 node`,
    );
  const out = resolve(args.out ?? join(ROOT, 'dist', 'svc-linux-x64'));
  const work = resolve(args.work ?? join(ROOT, 'dist', 'package'));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  mkdirSync(dirname(out), { recursive: true });
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const web = join(work, 'web');
  await step('web UI built (Vite)', () => buildWeb(web));
  const bundles = await step('bundles written (esbuild)', () => bundle(ROOT, work));
  const { assets } = await step('carried files listed', () =>
    carry(ROOT, work, { version, web, workerSource: bundles.worker }),
  );
  const blob = await step('SEA blob prepared', () =>
    prepareBlob(work, { main: bundles.main, assets, useCodeCache: !args['no-code-cache'] }),
  );
  const strip = !args['no-strip'] && haveStrip();
  await step(`blob injected into a copy of node ${process.version}${strip ? ', stripped' : ''}`, () =>
    injectBlob(ROOT, blob, out, { strip }),
  );
  const v = spawnSync(out, ['--version'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (v.status !== 0 || v.stdout.trim() !== `svc ${version}`)
    throw new Error(`cannot package: ${out} --version answered ${v.status}: ${v.stdout}${v.stderr}`);
  console.log(`package: ${out} (${(statSync(out).size / 2 ** 20).toFixed(1)} MiB), ${v.stdout.trim()}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
