/**
 * Start-to-serving: wall time from spawning a command until `GET /api/health` answers 200, on a
 * fresh temporary data dir and a free loopback port, then SIGTERM and the time to exit.
 *
 *   npx tsx bench/startup.ts [--runs 5] [--cmd 'npm start' | --cmd dist/svc-linux-x64] [--unpack-dir DIR]
 *
 * Several --cmd run one after another (default: `npm start`, then `node dist/src/main.js`). Each run
 * gets a new data dir, so the time includes creating it (the admin user, the control database).
 * `npm start`'s first run pays for a build if something changed; the median is of the runs after it.
 * --unpack-dir sets SVC_UNPACK_DIR (where the executable writes its addon and UI); unset: ~/.cache/svc.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib/args.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    cmd: { type: 'string', multiple: true },
    'unpack-dir': { type: 'string' },
  },
});
const RUNS = Number(args.runs);
const COMMANDS = args.cmd ?? ['npm start', 'node dist/src/main.js'];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/health`)).status === 200;
  } catch {
    return false;
  }
}

/** One start: ms to the first 200 from /api/health, and ms from SIGTERM to exit. */
async function once(cmd: string): Promise<{ serving: number; stop: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  const env: Record<string, string | undefined> = {
    ...clean,
    SVC_DATA_DIR: dataDir,
    SVC_LISTEN: `127.0.0.1:${port}`,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    SVC_LOG_LEVEL: 'warn',
  };
  if (args['unpack-dir']) env.SVC_UNPACK_DIR = args['unpack-dir'];
  const t0 = performance.now();
  // detached: `npm start` runs node under a shell; SIGTERM goes to the whole group
  const child = spawn(cmd, { shell: true, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let done = false;
  void exited.then(() => (done = true));
  while (!(await healthy(url))) {
    if (done) throw new Error(`${cmd} exited before serving`);
    if (performance.now() - t0 > 120_000) throw new Error(`${cmd} did not serve in 120 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const serving = performance.now() - t0;
  const t1 = performance.now();
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  // npm may exit before the node it started: wait for the whole group
  while (groupAlive(child.pid!)) await new Promise((r) => setTimeout(r, 10));
  const stop = performance.now() - t1;
  rmSync(dataDir, { recursive: true, force: true });
  return { serving, stop };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const cmd of COMMANDS) {
  const runs: { serving: number; stop: number }[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(cmd));
  const rest = runs.length > 1 ? runs.slice(1) : runs;
  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `${cmd}: first start-to-serving ${fmt(runs[0].serving)}, median of the rest ${fmt(median(rest.map((r) => r.serving)))} ` +
      `(${runs.map((r) => fmt(r.serving)).join(', ')}); stop ${fmt(median(runs.map((r) => r.stop)))}`,
  );
}
