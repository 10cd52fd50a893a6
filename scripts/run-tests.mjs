// Runs every test file under test/ with Node's own runner through tsx.
// Node 20's --test does not expand globs, so we list the files ourselves.
// When a selected file uses S3 and radosgw is installed, a real S3 server (scripts/s3-fixture.mjs)
// is started once before the files run and stopped after, whatever happens to them.
// src/ (and web/, when stale) is compiled first, incrementally (scripts/build-if-stale.mjs), so the
// svc processes the tests start run the compiled dist/src (SVC_TEST_ENTRY=dist, test/helpers/entry.ts).
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { s3FixtureSkipReason, startS3Fixture, sweepStaleS3Fixtures } from './s3-fixture.mjs';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = walk('test')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Ctrl-C reaches the test runner too (same process group): wait for it, then stop the server
let child;
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    interrupted = true;
    child?.kill(sig);
  });
}

const build = spawnSync(process.execPath, [join(import.meta.dirname, 'build-if-stale.mjs')], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('the build failed: no test runs on a stale dist/');
  process.exit(1);
}

sweepStaleS3Fixtures();
let s3;
const skip = s3FixtureSkipReason(files);
if (skip) console.log(`s3: no fixture started: ${skip}`);
else {
  try {
    s3 = await startS3Fixture();
    if (interrupted) throw new Error('interrupted');
  } catch (e) {
    s3?.stop();
    console.error(`${e.message}\n(SVC_TEST_S3=off runs the tests without S3)`);
    process.exit(1);
  }
  console.log(
    `s3: Ceph RADOS Gateway at ${s3.env.SVC_TEST_S3_ENDPOINT}, bucket ${s3.env.SVC_TEST_S3_BUCKET}, up in ${s3.seconds.toFixed(1)} s`,
  );
}

child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, ...s3?.env, NODE_ENV: 'test', SVC_TEST_ENTRY: 'dist' } },
);
const code = await new Promise((resolve) => {
  child.on('error', (e) => {
    console.error(e);
    resolve(1);
  });
  child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
});
s3?.stop();
process.exit(code);
