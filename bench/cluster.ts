/**
 * Several nodes on one store: how far behind a reader is, and what searching another node's blocks
 * costs. Two storage engines in this process share the store
 * (docs/decisions/0011-shared-store-several-nodes.md; docs/storage.md, "Several nodes"): node `a` writes,
 * node `b` reads through its block cache.
 *
 *   npx tsx bench/cluster.ts [--store s3|dir] [--events 1000000] [--runs 7] [--lag-secs 60] [--sync-secs 10]
 *
 * --store s3 (the default when radosgw is installed) starts the tests' one-node Ceph with its RADOS
 * Gateway (test/fixtures/s3) for the run, or uses SVC_BENCH_S3_ENDPOINT + SVC_BENCH_S3_BUCKET and
 * the AWS_* credentials when set. --store dir shares a directory under /tmp.
 *
 * 1. Publish: the shared data set (bench/lib/dataset.ts) loaded once into a data dir (as
 *    bench/query.ts does), copied to node a's data dir; opening a with the store uploads it.
 * 2. Searches on b over a's blocks, first cold (every block downloaded into b's cache), then warm,
 *    beside the same searches on the local data dir without a store; the cache hit rate of b.
 * 3. Sync lag: a takes a small batch every 250 ms for --lag-secs; each batch carries its own seq.
 *    b syncs on its own timer every --sync-secs (SVC_BLOCK_SYNC_SECS, default 10) and the bench
 *    asks b every 100 ms which seqs it sees: lag = first seen on b − acknowledged on a. It is
 *    bounded by a seal (5 s of segment age) + the upload + one sync interval.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { SYSTEM_PRINCIPAL } from '../src/auth/principal.js';
import { systemClock } from '../src/clock/clock.js';
import { loadConfig } from '../src/config/load.js';
import { QueryService } from '../src/query/service.js';
import { DirStore } from '../src/shared-store/dir-store.js';
import type { ObjectStore } from '../src/shared-store/object-store.js';
import { S3Store } from '../src/shared-store/s3-store.js';
import { StorageEngine } from '../src/storage/engine.js';
import { ensureDataset } from './lib/dataset.js';
import { benchControl as control, loadDataDir, openEngine } from './lib/load.js';

const ROOT = '/tmp/svc-bench/cluster';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs: number[]) => pct(xs, 50);
const mib = (b: number) => (b / 1024 / 1024).toFixed(1);

interface BenchStore {
  store: ObjectStore;
  env: Record<string, string>;
  stop(): void;
}

async function openStore(kind: string): Promise<BenchStore> {
  if (kind === 'dir') {
    const path = join(ROOT, 'store');
    rmSync(path, { recursive: true, force: true });
    return { store: new DirStore(path), env: { SVC_STORE: path }, stop: () => undefined };
  }
  let endpoint = process.env.SVC_BENCH_S3_ENDPOINT;
  let bucket = process.env.SVC_BENCH_S3_BUCKET ?? 'svc-bench';
  let stopFixture = () => undefined as void;
  if (!endpoint) {
    // @ts-expect-error: a plain ESM script of the test runner, without types
    const { startS3Fixture } = (await import('../scripts/s3-fixture.mjs')) as {
      startS3Fixture: () => Promise<{ env: Record<string, string>; seconds: number; stop(): void }>;
    };
    const f = await startS3Fixture();
    console.log(`S3: a one-node Ceph with its RADOS Gateway, up in ${f.seconds.toFixed(1)} s`);
    for (const [k, v] of Object.entries(f.env)) if (k.startsWith('AWS_')) process.env[k] = v;
    endpoint = f.env.SVC_TEST_S3_ENDPOINT;
    bucket = f.env.SVC_TEST_S3_BUCKET;
    stopFixture = () => f.stop();
  }
  const prefix = `bench-${Date.now().toString(36)}`;
  const store = await S3Store.open({
    bucket,
    prefix,
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    pathStyle: true,
  });
  const env = { SVC_STORE: `s3://${bucket}/${prefix}`, SVC_S3_ENDPOINT: endpoint, SVC_S3_PATH_STYLE: 'true' };
  return { store, env, stop: () => (store.close(), stopFixture()) };
}

async function openNode(
  id: string,
  dataDir: string,
  store: BenchStore,
  env: Record<string, string>,
): Promise<StorageEngine> {
  const config = loadConfig({
    ...process.env,
    ...store.env,
    SVC_DATA_DIR: dataDir,
    SVC_NODE_ID: id,
    SVC_LOG_LEVEL: 'silent',
    ...env,
  });
  return StorageEngine.open({
    config,
    control,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    store: store.store,
  });
}

async function timeSearch(
  svc: QueryService,
  q: string,
  runs: number,
): Promise<{ first: number; median: number; count: number }> {
  const once = async () => {
    const t0 = performance.now();
    const r = await svc.search(SYSTEM_PRINCIPAL, { q });
    return { ms: performance.now() - t0, count: r.rows ? r.rows.length : r.meta.matched };
  };
  const first = await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await once()).ms);
  return { first: first.ms, median: median(times), count: first.count };
}

async function main(): Promise<void> {
  const { spawnSync } = await import('node:child_process');
  const haveRgw = spawnSync('sh', ['-c', 'command -v radosgw'], { stdio: 'ignore' }).status === 0;
  const kind = arg('store', process.env.SVC_BENCH_S3_ENDPOINT || haveRgw ? 's3' : 'dir');
  const events = Number(arg('events', '1000000'));
  const runs = Number(arg('runs', '7'));
  const lagSecs = Number(arg('lag-secs', '60'));
  const syncSecs = arg('sync-secs', '10');

  const ds = await ensureDataset(events);
  const localDir = `/tmp/svc-bench/query-data-${events}`;
  await loadDataDir(ds.path, localDir);
  mkdirSync(ROOT, { recursive: true });
  const store = await openStore(kind);
  try {
    // --- 1. publish node a's blocks
    const aDir = join(ROOT, 'a');
    const bDir = join(ROOT, 'b');
    rmSync(aDir, { recursive: true, force: true });
    rmSync(bDir, { recursive: true, force: true });
    cpSync(localDir, aDir, { recursive: true });
    let t0 = performance.now();
    const a = await openNode('a', aDir, store, { SVC_BLOCK_SYNC_SECS: syncSecs });
    await a.cluster!.publish();
    const publishMs = performance.now() - t0;
    const st = a.stats();
    console.log(
      `\nstore: ${kind} (${store.store.location}); ${events.toLocaleString()} events in ${st.blocks} blocks, ${mib(st.blockBytes)} MiB`,
    );
    console.log(
      `publish: ${(publishMs / 1000).toFixed(1)} s, ${mib(st.blockBytes / (publishMs / 1000))} MiB/s (upload, sidecars, manifest)`,
    );

    // --- 2. searches on b over a's blocks, beside the local data dir
    t0 = performance.now();
    const b = await openNode('b', bDir, store, { SVC_BLOCK_SYNC_SECS: syncSecs });
    const syncMs = performance.now() - t0;
    console.log(
      `node b opened and synced a's manifest in ${syncMs.toFixed(0)} ms (${b.cluster!.counts().remote} remote blocks)`,
    );
    const local = await openEngine(localDir);
    const onB = new QueryService({ store: b, control, clock: systemClock });
    const onLocal = new QueryService({ store: local, control, clock: systemClock });
    const cases = [
      { name: 'rare term', q: ds.rareTerm },
      { name: 'stats count by host', q: '* | stats count by host' },
    ];
    console.log(
      `\n| search (${runs} runs after the first) | local blocks, median | ${kind}-cached on b: first (cold) | ${kind}-cached on b: median (warm) | events or rows |`,
    );
    console.log('|---|---:|---:|---:|---:|');
    for (const c of cases) {
      const l = await timeSearch(onLocal, c.q, runs);
      const r = await timeSearch(onB, c.q, runs);
      const same = l.count === r.count ? '' : ` (local ${l.count}: MISMATCH)`;
      console.log(
        `| ${c.name} \`${c.q}\` | ${l.median.toFixed(1)} ms | ${r.first.toFixed(0)} ms | ${r.median.toFixed(1)} ms | ${r.count}${same} |`,
      );
    }
    const cs = b.cluster!.cacheStats();
    const hitRate = cs.hits / Math.max(1, cs.hits + cs.misses);
    console.log(
      `\ncache on b: ${cs.files} files, ${mib(cs.bytes)} of ${mib(cs.maxBytes)} MiB; ${cs.hits} hits, ${cs.misses} misses (hit rate ${(hitRate * 100).toFixed(1)}%), ${mib(cs.downloadedBytes)} MiB downloaded`,
    );
    await local.close();

    // --- 3. sync lag: small batches on a, seen on b
    const acked = new Map<number, number>();
    const seen = new Map<number, number>();
    let seq = 0;
    const writing = (async () => {
      const until = Date.now() + lagSecs * 1000;
      while (Date.now() < until) {
        const n = seq++;
        await a.writer.write(
          Array.from({ length: 20 }, (_, i) => ({
            timeUs: Date.now() * 1000,
            env: 'default',
            index: 'lag',
            host: 'bench',
            source: 'bench',
            sourcetype: 'lag',
            message: `lag ${n} ${i}`,
            fields: { seq: n },
          })),
          { wait: true },
        );
        acked.set(n, Date.now());
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    let done = false;
    void writing.then(() => (done = true));
    const deadline = () => Date.now() + (Number(syncSecs) + 15) * 1000;
    let stopAt = Infinity;
    while (!done || (seen.size < acked.size && Date.now() < stopAt)) {
      if (done && stopAt === Infinity) stopAt = deadline();
      const r = await onB.search(SYSTEM_PRINCIPAL, { q: 'index=lag | stats count by seq', from: '-1h', to: 'now' });
      const col = r.columns!.indexOf('seq');
      const now = Date.now();
      for (const row of r.rows ?? []) {
        const s = Number(row[col]);
        if (!seen.has(s)) seen.set(s, now);
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    const lags = [...acked].filter(([s]) => seen.has(s)).map(([s, at]) => seen.get(s)! - at);
    console.log(
      `\nsync lag a → b (SVC_BLOCK_SYNC_SECS=${syncSecs}, seal at 5 s of segment age; ${acked.size} batches over ${lagSecs} s, ${seen.size} seen): ` +
        `p50 ${(median(lags) / 1000).toFixed(1)} s, p99 ${(pct(lags, 99) / 1000).toFixed(1)} s, max ${(Math.max(...lags) / 1000).toFixed(1)} s`,
    );
    console.log(`memory: rss ${mib(process.memoryUsage().rss)} MiB`);
    await b.close();
    await a.close();
  } finally {
    store.stop();
  }
}

await main();
