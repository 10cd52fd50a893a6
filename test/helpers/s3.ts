import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { S3Store } from '../../src/shared-store/s3-store.js';
import type { RetryPolicy } from '../../src/shared-store/s3-retry.js';
import type { StoreBackend } from './cluster.js';
import { freePort } from './ports.js';

/**
 * The real S3 server of a test run: scripts/run-tests.mjs starts one (a one-node Ceph with its
 * RADOS Gateway, test/fixtures/s3/start.sh) when radosgw is installed, and passes it to every test
 * process as SVC_TEST_S3_ENDPOINT, SVC_TEST_S3_BUCKET, SVC_TEST_S3_CEPH_CONF and AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_REGION (read by the SDK's default credential chain). Tests share the
 * bucket: each works under its own fresh prefix (`uniquePrefix`). The runner starts the server only
 * when a selected test file imports this helper; without the variables, S3 tests skip and say so.
 */
export interface S3TestServer {
  endpoint: string;
  bucket: string;
  region: string;
}

export function s3SkipReason(): string | false {
  if (!process.env.SVC_TEST_S3_ENDPOINT || !process.env.SVC_TEST_S3_BUCKET) {
    return 'skipped: no S3 server (SVC_TEST_S3_ENDPOINT unset; scripts/run-tests.mjs starts one when radosgw is installed)';
  }
  return false;
}

export function s3Server(): S3TestServer {
  if (s3SkipReason()) throw new Error('BUG: an S3 test ran without SVC_TEST_S3_ENDPOINT (check s3SkipReason)');
  return {
    endpoint: process.env.SVC_TEST_S3_ENDPOINT!,
    bucket: process.env.SVC_TEST_S3_BUCKET!,
    region: process.env.AWS_REGION ?? 'us-east-1',
  };
}

/** A prefix no other test (nor an earlier run on a kept server) has used: `test/<label>-<time>-<random>`. */
export function uniquePrefix(label = 'store'): string {
  return `test/${label}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** An S3Store on the test server (or another endpoint, like a test's own gateway) under a fresh prefix. */
export async function openTestStore(
  opts: { prefix?: string; endpoint?: string; retry?: Partial<RetryPolicy> } = {},
): Promise<S3Store> {
  const s = s3Server();
  return S3Store.open({
    bucket: s.bucket,
    prefix: opts.prefix ?? uniquePrefix(),
    endpoint: opts.endpoint ?? s.endpoint,
    region: s.region,
    pathStyle: true,
    retry: opts.retry,
  });
}

/** Deletes every object under the store's prefix (the cluster goes at the end of the run anyway; this keeps a kept one tidy). */
export async function emptyStore(store: S3Store): Promise<void> {
  const all = await store.list('');
  for (let i = 0; i < all.length; i += 50) await Promise.all(all.slice(i, i + 50).map((o) => store.delete(o.key)));
}

export function gatewaySkipReason(): string | false {
  return (
    s3SkipReason() ||
    (process.env.SVC_TEST_S3_CEPH_CONF
      ? false
      : "skipped: the S3 server is not the fixture's Ceph (SVC_TEST_S3_CEPH_CONF unset)")
  );
}

/**
 * A test's own RADOS Gateway: a second radosgw process on the fixture's cluster, on its own port,
 * which the test can stop, restart and freeze (SIGSTOP) without disturbing the tests that share
 * the main one. Starts in ~0.1 s (the cluster's pools exist already).
 */
export interface Gateway {
  endpoint: string;
  /** Stops the process (SIGTERM) and waits for it; the port refuses connections after. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers. */
  start(): Promise<void>;
  /** SIGSTOP: connections are accepted by the kernel and never answered. */
  freeze(): void;
  thaw(): void;
}

export async function startGateway(): Promise<Gateway> {
  const conf = process.env.SVC_TEST_S3_CEPH_CONF!;
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // its own name, log and pid file beside the main gateway's: should this test process die
  // without stopping it, the fixture's stop.sh stops every client.rgw*.pid of the cluster
  const name = `client.rgw-test-${randomBytes(4).toString('hex')}`;
  const pidFile = join(dirname(conf), 'run', `${name}.pid`);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const gw: Gateway = {
    endpoint,
    async start() {
      child = spawn(
        'radosgw',
        ['-f', '-c', conf, '-n', name, '--rgw-frontends', `beast endpoint=127.0.0.1:${port}`, '--debug-rgw', '0'],
        { stdio: 'ignore' },
      );
      const c = child;
      writeFileSync(pidFile, String(c.pid)); // radosgw -f writes none itself
      exited = new Promise((resolve) => c.once('exit', () => resolve()));
      await waitForAnswer(endpoint, exited);
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited;
      rmSync(pidFile, { force: true });
    },
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
  };
  await gw.start();
  return gw;
}

async function waitForAnswer(endpoint: string, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !gone;) {
    const ok = await fetch(`${endpoint}/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the test gateway at ${endpoint} did not answer${gone ? ' (it exited)' : ' in 30 s'}`);
}

/**
 * SVC_STORE as a fresh prefix of the test bucket, for tests that run real svc processes on it
 * (test/helpers/cluster.ts); the snapshot is every object under the prefix with its bytes.
 */
export const s3Backend: StoreBackend = {
  name: 'an S3 bucket (Ceph RADOS Gateway)',
  async create() {
    const s = s3Server();
    const prefix = uniquePrefix('cluster');
    const store = await openTestStore({ prefix });
    return {
      env: {
        SVC_STORE: `s3://${s.bucket}/${prefix}`,
        SVC_S3_ENDPOINT: s.endpoint,
        SVC_S3_REGION: s.region,
        SVC_S3_PATH_STYLE: 'true',
      },
      async snapshot() {
        const files = new Map<string, Buffer>();
        for (const o of await store.list('')) {
          const got = await store.get(o.key);
          if (got) files.set(o.key, got.data);
        }
        return files;
      },
      async dispose() {
        await emptyStore(store);
        store.close();
      },
    };
  },
};
