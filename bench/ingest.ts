/**
 * Ingest benchmark: drives the storage Writer (durable acks) with the shared data set, then
 * measures sealing, bytes on disk and restart time.
 *
 *   npx tsx bench/ingest.ts [--events 5000000] [--batch 1000] [--inflight 16] [--keep] [--defer-seal]
 *   npx tsx bench/ingest.ts --http [--events N] [--batch 5000] [--inflight 4]
 *   --dataset N: take the first --events lines of the N-event data set (default: the --events set).
 *   The data set always spans 30 days, so `--dataset 5000000 --events 1000000` sends ~6 days of
 *   dense traffic (~166k events per day, like a busy live stream) instead of 30 sparse days.
 *
 * Prints events/s, p50/p99 ack latency per batch, peak RSS of this process (which holds the whole
 * storage engine and DuckDB), bytes on disk vs the raw NDJSON, time to seal everything, and the
 * time to reopen the data dir and answer a first query. Machine: whatever runs it (say so).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cpus, totalmem } from 'node:os';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { systemClock } from '../src/clock/clock.js';
import { StorageEngine } from '../src/storage/engine.js';
import type { ControlReader } from '../src/control/types.js';
import { ensureDataset } from './lib/dataset.js';
import { lineBatches, lineToEvent } from './lib/events.js';
import { numArg } from './lib/args.js';

const control: ControlReader = { env: () => undefined, envs: () => [], settings: () => ({}) };

function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return n;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function open(dataDir: string): Promise<StorageEngine> {
  const config = loadConfig({ ...process.env, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' });
  // --defer-seal: keep everything in the WAL during ingest (isolates the JS write path)
  const tuning = {
    ...(process.argv.includes('--defer-seal') ? { segmentBytes: 2 ** 40, segmentAgeMs: 2 ** 30 } : {}),
    // --no-merge: no background merges (what merging costs ingest)
    ...(process.argv.includes('--no-merge') ? { merge: false } : {}),
  };
  return StorageEngine.open({ config, control, clock: systemClock, log: pino({ level: 'silent' }), tuning });
}

/** CPU seconds (user + system, all threads) another process has used so far. */
function cpuSecsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** VmHWM (peak RSS) of another process, in bytes. */
function peakRssOf(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

async function post(
  url: string,
  path: string,
  token: string | undefined,
  body: string,
  type = 'application/json',
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * --http: the same data set through POST /api/ingest of a real svc started as a child process
 * (its peak RSS read from /proc), NDJSON bodies of --batch lines, --inflight requests at once.
 */
async function mainHttp(): Promise<void> {
  const events = numArg('events', 5_000_000);
  const batchSize = numArg('batch', 5000);
  const inflight = numArg('inflight', 4);
  const ds = await ensureDataset(numArg('dataset', events));
  const dataDir = `/tmp/svc-bench/http-data-${process.pid}`;
  rmSync(dataDir, { recursive: true, force: true });
  const port = 17300 + (process.pid % 1000);
  const env = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    SVC_LISTEN: `127.0.0.1:${port}`,
    SVC_ADMIN_PASSWORD: 'bench-password',
    SVC_LOG_LEVEL: 'warn',
  };
  const startChild = async () => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [...(process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'],
      { env, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      try {
        if ((await fetch(url + '/api/health')).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return { child, url, startMs: performance.now() - t0 };
  };
  const { child, url } = await startChild();
  const login = await post(
    url,
    '/api/auth/login',
    undefined,
    JSON.stringify({ username: 'admin', password: 'bench-password' }),
  );
  const admin = (login.json as { token: string }).token;
  const tok = await post(
    url,
    '/api/admin/ingest-tokens',
    admin,
    JSON.stringify({ name: `bench-${Date.now()}`, env: 'default' }),
  );
  const secret = (tok.json as { secret: string }).secret;
  const lat: number[] = [];
  const running = new Set<Promise<void>>();
  let sent = 0;
  let errors = 0;
  const serverCpu0 = cpuSecsOf(child.pid!);
  const clientCpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const lines of lineBatches(ds.path, batchSize, events)) {
    const body = lines.join('\n') + '\n';
    const start = performance.now();
    const p: Promise<void> = post(url, '/api/ingest?index=main', secret, body, 'application/x-ndjson').then((r) => {
      if (r.status !== 200) throw new Error(`ingest answered ${r.status}: ${JSON.stringify(r.json)}`);
      errors += (r.json as { errors: number }).errors;
      lat.push(performance.now() - start);
      running.delete(p);
    });
    running.add(p);
    sent += lines.length;
    if (running.size >= inflight) await Promise.race(running);
  }
  await Promise.all(running);
  const ingestMs = performance.now() - t0;
  const serverCpu = cpuSecsOf(child.pid!) - serverCpu0;
  const clientCpu = process.cpuUsage(clientCpu0);
  const peak = peakRssOf(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  const diskBytes = duBytes(join(dataDir, 'blocks')) + duBytes(join(dataDir, 'wal'));
  const again = await startChild();
  again.child.kill('SIGTERM');
  await new Promise((r) => again.child.on('exit', r));
  lat.sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        mode: 'http POST /api/ingest',
        events: sent,
        malformed: errors,
        batch: batchSize,
        inflight,
        eventsPerSec: Math.round(sent / (ingestMs / 1000)),
        ackP50Ms: +pct(lat, 50).toFixed(1),
        ackP99Ms: +pct(lat, 99).toFixed(1),
        serverPeakRssMiB: Math.round(peak / 2 ** 20),
        // CPU per event is what a faster or less loaded machine cannot hide; the client shares the cores
        serverCpuUsPerEvent: +((serverCpu * 1e6) / sent).toFixed(1),
        clientCpuUsPerEvent: +((clientCpu.user + clientCpu.system) / sent).toFixed(1),
        rawBytes: Math.round((ds.bytes * sent) / ds.events),
        diskBytesAtStop: diskBytes,
        restartToHealthyMs: Math.round(again.startMs),
      },
      null,
      2,
    ),
  );
  if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const events = numArg('events', 5_000_000);
  const batchSize = numArg('batch', 1000);
  const inflight = numArg('inflight', 16);
  const ds = await ensureDataset(numArg('dataset', events));
  const dataDir = `/tmp/svc-bench/ingest-data-${process.pid}`;
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

  const engine = await open(dataDir);
  // --mem: where the memory is, every 5 s (JS heap, buffers, DuckDB's own accounting, RSS)
  const memTimer = process.argv.includes('--mem')
    ? setInterval(() => {
        const m = process.memoryUsage();
        void engine.debugMemory().then((duck) =>
          console.error(
            JSON.stringify({
              rssMiB: m.rss >> 20,
              heapMiB: m.heapUsed >> 20,
              heapTotalMiB: m.heapTotal >> 20,
              externalMiB: m.external >> 20,
              arrayBuffersMiB: m.arrayBuffers >> 20,
              duck,
            }),
          ),
        );
      }, 5000)
    : undefined;
  const lat: number[] = [];
  const running = new Set<Promise<void>>();
  const t0 = performance.now();
  let sent = 0;
  for (const lines of lineBatches(ds.path, batchSize, events)) {
    const batch = lines.map((l) => lineToEvent(l));
    const start = performance.now();
    const p: Promise<void> = engine.writer.write(batch, { wait: true }).then(() => {
      lat.push(performance.now() - start);
      running.delete(p);
    });
    running.add(p);
    sent += batch.length;
    if (running.size >= inflight) await Promise.race(running);
  }
  await Promise.all(running);
  const ingestMs = performance.now() - t0;
  if (memTimer) clearInterval(memTimer);
  const tSeal = performance.now();
  await engine.flush();
  const sealMs = performance.now() - tSeal;
  const stats = engine.stats();
  await engine.close();
  const diskBytes = duBytes(join(dataDir, 'blocks')) + duBytes(join(dataDir, 'wal'));

  const tOpen = performance.now();
  const again = await open(dataDir);
  const openMs = performance.now() - tOpen;
  const count = await again.scan({ envs: ['default'], indexes: null, requiredTokens: [], fields: [] }, (rel, exec) =>
    exec(`SELECT count(*) FROM ${rel.sql} AS e`),
  );
  const firstQueryMs = performance.now() - tOpen - openMs;
  await again.close();
  clearInterval(sampler);

  lat.sort((a, b) => a - b);
  const result = {
    machine: `${cpus().length} cpu ${cpus()[0]?.model ?? ''}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    events: sent,
    batch: batchSize,
    inflight,
    eventsPerSec: Math.round(sent / (ingestMs / 1000)),
    ingestSecs: +(ingestMs / 1000).toFixed(2),
    ackP50Ms: +pct(lat, 50).toFixed(1),
    ackP99Ms: +pct(lat, 99).toFixed(1),
    peakRssMiB: Math.round(peakRss / 2 ** 20),
    sealAllSecs: +(sealMs / 1000).toFixed(2),
    blocks: stats.blocks,
    rawBytes: Math.round((ds.bytes * sent) / ds.events),
    diskBytes,
    rawToDisk: +((ds.bytes * sent) / ds.events / diskBytes).toFixed(1),
    restartOpenMs: Math.round(openMs),
    restartFirstCountMs: Math.round(firstQueryMs),
    countAfterRestart: Number(count.rows[0][0]),
  };
  console.log(JSON.stringify(result, null, 2));
  if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
  else console.log(`data kept in ${dataDir}`);
}

await (process.argv.includes('--http') ? mainHttp() : main());
