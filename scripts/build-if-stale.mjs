// `npm start`'s prestart: builds only what changed, so a restart with nothing changed goes straight
// to `node dist/src/main.js`.
// - src/: `tsc -b tsconfig.build.json`, incremental; when no source changed since its last build it
//   checks and stops (≈ 0.3 s), else recompiles what changed. tsc -b trusts its build info for the
//   outputs: when a compiled file is missing (dist/src partly removed) the build info goes first.
// - web/: Vite, only when a file under web/ or package-lock.json is newer than dist/web/index.html
//   (Vite empties dist/web first, so a failed build leaves no index.html and the next start retries).
// Usage: node scripts/build-if-stale.mjs
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..');
const WEB_INDEX = join(ROOT, 'dist', 'web', 'index.html');
const BUILD_INFO = join(ROOT, 'dist', 'tsconfig.build.tsbuildinfo');

/** The newest modification time under `path` (files and the folders themselves: a deletion touches its folder). */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const name of readdirSync(path)) if (name !== 'node_modules') t = Math.max(t, newest(join(path, name)));
  return t;
}

/** True when some src/**.ts has no dist/src/**.js. */
function missingOutput(dir = join(ROOT, 'src')) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (missingOutput(p)) return true;
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      const compiled = join(ROOT, 'dist', relative(ROOT, p)).replace(/\.ts$/, '.js');
      if (!existsSync(compiled)) return true;
    }
  }
  return false;
}

function run(label, args) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build-if-stale: ${label} failed`);
    process.exit(r.status ?? 1);
  }
}

function webIsStale() {
  if (!existsSync(WEB_INDEX)) return true;
  const built = statSync(WEB_INDEX).mtimeMs;
  return newest(join(ROOT, 'web')) > built || statSync(join(ROOT, 'package-lock.json')).mtimeMs > built;
}

if (missingOutput()) rmSync(BUILD_INFO, { force: true });
run('tsc', [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json']);
if (webIsStale()) {
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn' });
}
