// The real S3 server of a test run: test/fixtures/s3/start.sh makes a one-node Ceph cluster with
// its RADOS Gateway in a fresh temp dir, on free loopback ports; stop.sh stops it and deletes the
// dir. scripts/run-tests.mjs starts it once before the test files and stops it after, and hands
// every test process its settings through the environment (read by test/helpers/s3.ts).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '..', 'test', 'fixtures', 's3');
const DIR_PREFIX = 'svc-test-s3-';

/** Why no server is started for these test files, or undefined when one should be. */
export function s3FixtureSkipReason(files) {
  if (process.env.SVC_TEST_S3 === 'off') return 'SVC_TEST_S3=off';
  if (process.env.SVC_TEST_S3_ENDPOINT) return `using the S3 server at ${process.env.SVC_TEST_S3_ENDPOINT}`;
  if (!onPath('radosgw'))
    return 'radosgw is not installed (apt-get install --no-install-recommends radosgw ceph-mon ceph-osd): the S3 tests will skip';
  // only runs with a test file that uses the helper need the server (a run of the query tests does not)
  if (!files.some((f) => readFileSync(f, 'utf8').includes('helpers/s3.js'))) return 'no selected test file uses S3';
  return undefined;
}

/**
 * Starts the cluster; resolves with the environment the tests need and a stop function.
 * Throws with the fixture's output when it does not come up.
 */
export async function startS3Fixture() {
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const stop = () => stopFixture(dir);
  const started = Date.now();
  const port = await freePort();
  const monPort = await freePort();
  // start.sh wants an empty dir: the cluster lives in a subdirectory, owner.pid beside it
  const out = await run('bash', [join(FIXTURE, 'start.sh')], {
    S3_DIR: join(dir, 'ceph'),
    S3_PORT: String(port),
    S3_MON_PORT: String(monPort),
  }).catch((e) => {
    stopFixture(dir, '--keep');
    throw new Error(`the S3 fixture did not start (logs in ${join(dir, 'ceph', 'log')}):\n${e.message}`);
  });
  const v = Object.fromEntries(
    out
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const env = {
    SVC_TEST_S3_ENDPOINT: v.S3_ENDPOINT,
    SVC_TEST_S3_BUCKET: v.S3_BUCKET,
    SVC_TEST_S3_CEPH_CONF: v.S3_CONF,
    AWS_ACCESS_KEY_ID: v.S3_ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: v.S3_SECRET_KEY,
    AWS_REGION: 'us-east-1',
  };
  return { env, seconds: (Date.now() - started) / 1000, stop };
}

function stopFixture(dir, ...args) {
  try {
    if (existsSync(join(dir, 'ceph')))
      execFileSync('bash', [join(FIXTURE, 'stop.sh'), ...args], {
        env: { ...process.env, S3_DIR: join(dir, 'ceph') },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    if (args.length === 0) rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    console.error(`s3: cannot stop the fixture in ${dir}: ${e.message}`);
  }
}

/** Stops and deletes the clusters of runs that died without stopping them (killed): their owner no longer runs. */
export function sweepStaleS3Fixtures() {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX))) {
    const dir = join(tmpdir(), name);
    let owner;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being created right now, or not ours
    }
    if (!alive(owner)) stopFixture(dir);
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function onPath(bin) {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${err}${out}`.trim() || `exit ${code}`)),
    );
  });
}
