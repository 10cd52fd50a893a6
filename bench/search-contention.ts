/**
 * Searches cannot starve ingest (issue 23, item 4): native ingest over HTTP into a real svc
 * process, first alone, then while many clients run a heavy search in a loop, then one heavy
 * search whose client disconnects.
 *
 *   npx tsx bench/search-contention.ts [--events 1000000] [--searchers 30] [--keys 10] [--batch 5000]
 *        [--concurrency 4] [--env SVC_X=v ...]
 *
 * Data: the real lines of SVC_REAL_DATA (as bench/ingest-http.ts) as NDJSON `{message, host, n}`
 * (one event a line), every 4th message with ` user=u<k%50>` appended so the rex finds something. The first half of --events is ingested
 * alone, the second half under search load: --searchers clients (spread over --keys API keys, so
 * both the per-key and the overall cap are exercised) each run `* | rex "user=(?<u>\w+)" | stats
 * count by u` over everything in a loop; a 429 is counted and retried after --retry-ms (200: harder
 * than a client honouring Retry-After; `retry-after` honours it). Prints ingest events/s alone and under load, ack latency p50/p99
 * of each phase, searches completed / refused, and for the disconnect: the CPU-seconds the server
 * process burned after the client left and how long until it was back to idle (< 10 % of a core
 * over a 100 ms window), read from /proc/<pid>/stat.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRealLines, realDataDir } from './lib/dataset.js';
import { benchCredentials, ingestRun, json, peakRssMiB, startServer, type IngestRun } from './lib/server.js';

const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    searchers: { type: 'string', default: '30' },
    keys: { type: 'string', default: '10' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    /** Pause of a searcher after a refusal (429), ms; 'retry-after' honours the header. */
    'retry-ms': { type: 'string', default: '200' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const EVENTS = Number(a.events);
const BATCH = Number(a.batch);
const CONC = Number(a.concurrency);
const HEAVY = '* | rex "user=(?<u>\\w+)" | stats count by u';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

function bodies(): Buffer[] {
  const dir = realDataDir();
  if (!existsSync(dir)) throw new Error(`no real data at ${dir} (set SVC_REAL_DATA)`);
  const lines = loadRealLines(dir).map((l) => l.text);
  const out: Buffer[] = [];
  let k = 0;
  for (let b = 0; b < 40; b++) {
    const part: string[] = [];
    for (let i = 0; i < BATCH; i++, k++) {
      const l = lines[k % lines.length];
      part.push(JSON.stringify({ message: k % 4 === 0 ? `${l} user=u${k % 50}` : l, host: `h${k % 50}`, n: k }));
    }
    out.push(Buffer.from(part.join('\n') + '\n'));
  }
  return out;
}

/** Process CPU time (user + system) of `pid`, seconds. */
function cpuSecs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

type Phase = IngestRun;

function ingest(url: URL, token: string, all: Buffer[], events: number): Promise<Phase> {
  return ingestRun(url, '/api/ingest?index=bench', token, all, Math.ceil(events / BATCH), CONC, {
    'content-type': 'application/x-ndjson',
  });
}

/** `n` clients searching in a loop until `stop`; counts answers by status. */
function searchLoops(base: string, keys: string[], n: number, stop: () => boolean): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const q = new URLSearchParams({ q: HEAVY, env: 'default' });
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      while (!stop()) {
        const res = await fetch(`${base}/api/search?${q}`, {
          headers: { authorization: `Bearer ${keys[i % keys.length]}` },
        });
        await res.arrayBuffer();
        counts[res.status] = (counts[res.status] ?? 0) + 1;
        if (res.status !== 200)
          await sleep(
            a['retry-ms'] === 'retry-after'
              ? Number(res.headers.get('retry-after') ?? 1) * 1000
              : Number(a['retry-ms']),
          );
      }
    }),
  ).then(() => counts);
}

/** Waits until the process uses < 10 % of a core over 100 ms; returns the seconds until that quiet window began (100 ms resolution). */
async function untilIdle(pid: number, limitSecs = 30): Promise<number> {
  const t0 = performance.now();
  let prev = cpuSecs(pid);
  for (;;) {
    await sleep(100);
    const now = cpuSecs(pid);
    const elapsed = (performance.now() - t0) / 1000;
    if (now - prev < 0.01 || elapsed > limitSecs) return Math.max(0, elapsed - 0.1);
    prev = now;
  }
}

/** Waits until the process used < 5 % of a core in each of 3 consecutive seconds (at most 90 s); returns the seconds waited. */
async function settled(pid: number): Promise<number> {
  const t0 = performance.now();
  let quiet = 0;
  let prev = cpuSecs(pid);
  while (quiet < 3 && performance.now() - t0 < 90_000) {
    await sleep(1000);
    const now = cpuSecs(pid);
    quiet = now - prev < 0.05 ? quiet + 1 : 0;
    prev = now;
  }
  return (performance.now() - t0) / 1000;
}

/** One heavy search whose client leaves after `afterMs`: CPU-seconds used after it left and time to idle. */
async function disconnect(
  srv: { url: string; pid: number },
  key: string,
  afterMs: number,
): Promise<{ cpu: number; idleSecs: number; busyBefore: number }> {
  const before = cpuSecs(srv.pid);
  const q = new URLSearchParams({ q: HEAVY, env: 'default' });
  const req = http.get(`${srv.url}/api/search?${q}`, { headers: { authorization: `Bearer ${key}` } });
  req.on('error', () => {});
  await sleep(afterMs);
  const atLeave = cpuSecs(srv.pid);
  req.destroy();
  const idleSecs = await untilIdle(srv.pid);
  return { cpu: cpuSecs(srv.pid) - atLeave, idleSecs, busyBefore: atLeave - before };
}

async function main(): Promise<void> {
  const all = bodies();
  const env = Object.fromEntries(a.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const srv = await startServer(dataDir, { env });
  try {
    const { admin, ingest: token } = await benchCredentials(srv.url);
    const keys: string[] = [];
    for (let i = 0; i < Number(a.keys); i++)
      keys.push(
        (
          (await json(
            `${srv.url}/api/admin/api-keys`,
            'POST',
            { name: `bench-${i}`, scopes: ['standard'] },
            admin,
          )) as { secret: string }
        ).secret,
      );
    const url = new URL(srv.url);
    const half = Math.floor(EVENTS / 2);

    console.error(`server ${srv.url} pid ${srv.pid}: ingesting ${half} events alone`);
    const alone = await ingest(url, token, all, half);
    console.error(`alone: ${alone.events} in ${alone.secs.toFixed(1)} s; ingesting the rest under search load`);
    let stop = false;
    const loops = searchLoops(srv.url, keys, Number(a.searchers), () => stop);
    await sleep(1000); // the searches get going first
    const loaded = await ingest(url, token, all, EVENTS - half);
    stop = true;
    const counts = await loops;
    // seals and merges of what just arrived come on timers: wait until the process has been quiet
    // for 3 s in a row, so that the CPU measured after the disconnect is the search's own
    const settle = await settled(srv.pid);

    // one heavy search alone, to time it; then the same one, left at half its time
    const q = new URLSearchParams({ q: HEAVY, env: 'default' });
    const s0 = performance.now();
    const whole = await fetch(`${srv.url}/api/search?${q}`, { headers: { authorization: `Bearer ${keys[0]}` } });
    await whole.arrayBuffer();
    const wholeMs = performance.now() - s0;
    await settled(srv.pid);
    const cut = await disconnect(srv, keys[0], wholeMs / 2);
    const next = await fetch(
      `${srv.url}/api/search?${new URLSearchParams({ q: 'user=u7 | head 1', env: 'default' })}`,
      { headers: { authorization: `Bearer ${keys[0]}` } },
    );

    const rate = (p: Phase) => Math.round(p.events / p.secs);
    const line = (name: string, p: Phase) =>
      `| ${name} | ${p.events.toLocaleString('en-US')} | ${p.secs.toFixed(1)} | ${rate(p).toLocaleString('en-US')} | ${pct(p.lat, 50).toFixed(0)} | ${pct(p.lat, 99).toFixed(0)} | ${Math.max(...p.lat).toFixed(0)} |`;
    console.log(
      `data: real lines of ${realDataDir()}, ${BATCH} events/request, ${CONC} ingest connections; ${a.searchers} searchers over ${a.keys} API keys running ${HEAVY}, retry after a 429: ${a['retry-ms']}; settings ${JSON.stringify(env)}`,
    );
    console.log('');
    console.log('| ingest | events | secs | events/s | ack p50 ms | ack p99 ms | ack max ms |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(line('alone', alone));
    console.log(line('under search load', loaded));
    console.log('');
    console.log(
      `ingest under load kept ${((100 * rate(loaded)) / rate(alone)).toFixed(0)} % of its alone rate (target >= 50 %), ack p99 ${pct(loaded.lat, 99).toFixed(0)} ms (target <= 2000)`,
    );
    console.log(
      `searches: ${counts['200'] ?? 0} completed, ${counts['429'] ?? 0} refused with 429, other ${JSON.stringify(Object.fromEntries(Object.entries(counts).filter(([k]) => k !== '200' && k !== '429')))}`,
    );
    console.log(`engine settled (seals, merges) ${settle.toFixed(0)} s after the load`);
    console.log(
      `the heavy search alone over ${EVENTS.toLocaleString('en-US')} events: ${whole.status} in ${wholeMs.toFixed(0)} ms`,
    );
    console.log(
      `disconnect after ${(wholeMs / 2000).toFixed(1)} s of it (${cut.busyBefore.toFixed(2)} CPU-s used by then): ${cut.cpu.toFixed(2)} CPU-s after the client left, idle again within ${cut.idleSecs.toFixed(2)} s (target <= 0.5 s); the next search answered ${next.status}`,
    );
    console.log(
      `server peak RSS ${peakRssMiB(srv.pid).toFixed(0)} MiB; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  } finally {
    await srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
