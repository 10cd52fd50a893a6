/**
 * Elasticsearch `_bulk` ingest benchmark: a real svc process (node + tsx, temporary data dir), N
 * concurrent clients posting pre-built NDJSON bulk bodies over loopback.
 *
 *   node --import tsx bench/es-bulk.ts            # 1,000,000 events, 5,000 per request, 4 clients
 *   BENCH_EVENTS=2000000 BENCH_BATCH=10000 BENCH_CONCURRENCY=8 BENCH_GZIP=1 node --import tsx bench/es-bulk.ts
 *
 * Prints events/s, MB/s of NDJSON, request latency p50/p99/max, and the server's peak RSS (VmHWM).
 * Data set: synthetic web-access documents (~300 bytes of JSON each, ECS-style nested fields, an
 * @timestamp spread over one day, 50 hosts). Goal: >= 150,000 events/s on the 2-core machine.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { peakRssMiB } from './lib/server.js';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createEnv, createIngestToken, createApiKey } from '../test/helpers/auth.js';
import { startServerProcess, type ProcessServer } from '../test/helpers/process.js';

export interface LoadResult {
  events: number;
  bytes: number;
  secs: number;
  latenciesMs: number[];
  failures: number;
}

export const envInt = (name: string, dflt: number): number => (process.env[name] ? Number(process.env[name]) : dflt);

/** Runs `total` events as bodies[i % n] with `concurrency` clients; `send` returns events accepted. */
export async function runLoad(
  total: number,
  perBody: number,
  concurrency: number,
  send: (i: number) => Promise<{ ok: boolean; bytes: number }>,
): Promise<LoadResult> {
  const requests = Math.ceil(total / perBody);
  let next = 0;
  let bytes = 0;
  let failures = 0;
  const latenciesMs: number[] = [];
  const t0 = performance.now();
  const worker = async () => {
    for (let i = next++; i < requests; i = next++) {
      const s = performance.now();
      const r = await send(i);
      latenciesMs.push(performance.now() - s);
      bytes += r.bytes;
      if (!r.ok) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { events: requests * perBody, bytes, secs: (performance.now() - t0) / 1000, latenciesMs, failures };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSecs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/**
 * Prints the figures. `cpuBefore` is the server's CPU seconds at the start: CPU µs per event is
 * the figure that stays meaningful when other work shares the machine (events/s then does not).
 */
export function report(name: string, r: LoadResult, server: ProcessServer, cpuBefore = 0): void {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  console.log(`${name}: ${r.events.toLocaleString('en')} events in ${r.secs.toFixed(2)} s`);
  console.log(
    `  throughput   ${Math.round(r.events / r.secs).toLocaleString('en')} events/s, ${(r.bytes / r.secs / 1048576).toFixed(1)} MiB/s on the wire`,
  );
  console.log(
    `  latency/req  p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
  );
  const cpu = cpuSecs(server.child.pid!) - cpuBefore;
  console.log(
    `  server CPU   ${cpu.toFixed(1)} s = ${((cpu * 1e6) / r.events).toFixed(1)} µs/event (≈ ${Math.round(r.events / cpu).toLocaleString('en')} events/s per busy core)`,
  );
  console.log(
    `  server RSS   peak ${peakRssMiB(server.child.pid!).toFixed(0)} MiB; failed requests ${r.failures}; load average ${loadavg()[0].toFixed(1)}`,
  );
}

/** A real svc process on a fresh data dir (`env` adds settings), with an env `bench` and an ingest token for it. */
export async function benchServer(env: Record<string, string> = {}): Promise<{
  server: ProcessServer;
  token: string;
  searchKey: string;
  cleanup: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const server = await startServerProcess({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: 'test-admin-password',
    SVC_LOG_LEVEL: 'info',
    ...env,
  });
  await createEnv(server, 'bench');
  const token = await createIngestToken(server, { env: 'bench' });
  const searchKey = await createApiKey(server, { scopes: ['standard'] });
  return {
    server,
    token,
    searchKey,
    cleanup: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Events stored in env `bench`, counted by the search API (checks nothing was lost). */
export async function storedCount(server: ProcessServer, key: string): Promise<number> {
  const res = await fetch(`${server.url}/api/search?env=bench&q=${encodeURIComponent('* | stats count')}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as { rows?: unknown[][] };
  return Number(body.rows?.[0]?.[0] ?? NaN);
}

const BASE_US = Date.UTC(2026, 10, 20) * 1000;

function doc(i: number): string {
  const ts = new Date((BASE_US + (i % 86_400) * 1_000_000 + (i % 1000)) / 1000).toISOString();
  return JSON.stringify({
    '@timestamp': ts,
    message: `GET /api/items/${i % 5000} HTTP/1.1 200 ${(i * 7) % 90000} "Mozilla/5.0 (X11; Linux x86_64)" rt=${(i % 977) / 1000}`,
    host: { name: `web-${i % 50}` },
    http: {
      request: { method: i % 10 === 0 ? 'POST' : 'GET' },
      response: { status_code: i % 97 === 0 ? 500 : 200, bytes: (i * 7) % 90000 },
    },
    url: { path: `/api/items/${i % 5000}` },
    user: { id: `u${i % 10000}` },
  });
}

function bulkBody(start: number, n: number): Buffer {
  const parts: string[] = [];
  for (let i = start; i < start + n; i++) parts.push('{"index":{"_index":"access"}}', doc(i));
  return Buffer.from(parts.join('\n') + '\n');
}

async function main(): Promise<void> {
  const total = envInt('BENCH_EVENTS', 1_000_000);
  const batch = envInt('BENCH_BATCH', 5000);
  const concurrency = envInt('BENCH_CONCURRENCY', 4);
  const gzip = process.env.BENCH_GZIP === '1';
  const { server, token, searchKey, cleanup } = await benchServer();
  try {
    const bodies = Array.from({ length: 16 }, (_, k) => bulkBody(k * batch, batch)).map((b) =>
      gzip ? gzipSync(b) : b,
    );
    const headers: Record<string, string> = {
      authorization: `ApiKey ${token}`,
      'content-type': 'application/x-ndjson',
    };
    if (gzip) headers['content-encoding'] = 'gzip';
    console.log(
      `es-bulk: ${total} events, ${batch}/request, ${concurrency} clients, gzip ${gzip}, body ${(bodies[0].length / 1024).toFixed(0)} KiB, node ${process.version}`,
    );
    const cpu0 = cpuSecs(server.child.pid!);
    const r = await runLoad(total, batch, concurrency, async (i) => {
      const body = bodies[i % bodies.length];
      const res = await fetch(`${server.url}/_bulk`, { method: 'POST', headers, body: new Uint8Array(body) });
      const out = (await res.json()) as { errors?: boolean };
      return { ok: res.status === 200 && out.errors === false, bytes: body.length };
    });
    report('es-bulk', r, server, cpu0);
    console.log(`  stored       ${await storedCount(server, searchKey)} events found by search`);
  } finally {
    await cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
