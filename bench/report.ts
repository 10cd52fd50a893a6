/**
 * The figures of issue 14 in one run, on the same raw NDJSON: native ingest over HTTP into a svc
 * process of its own, searches right after the load and once settled beside `grep -c`, bytes on
 * disk beside `zstd -3`, peak RSS.
 *
 *   npx tsx bench/report.ts [--events 5000000] [--days 7] [--hosts 200] [--batch 20000] [--clients 4] [--secs 10] [--env SVC_X=v ...]
 *
 * `--env` (repeatable) sets a server setting for the run, e.g. `--env SVC_DUCKDB_MEMORY_LIMIT=512MB`.
 *
 * The data set is bench/lib/dataset.ts's (real lines, digits varied per copy) in the given shape.
 * Needs grep and zstd on PATH (apt-get install zstd).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDataset } from './lib/dataset.js';
import { lineBatches } from './lib/events.js';
import { benchCredentials, peakRssMiB, post, startServer } from './lib/server.js';

const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '5000000' },
    days: { type: 'string', default: '7' },
    hosts: { type: 'string', default: '200' },
    batch: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '4' },
    secs: { type: 'string', default: '10' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const EVENTS = Number(a.events);
const SECS = Number(a.secs);

const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => `${x.toFixed(0)} ms`;

function grep(args: string[], file: string): { ms: number; count: number } {
  const t0 = performance.now();
  const r = spawnSync('grep', [...args, file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  return { ms: performance.now() - t0, count: Number(r.stdout.trim()) };
}

/** Bytes of every file under `dir`. */
function du(dir: string, filter: (name: string) => boolean = () => true): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && filter(e.name)) n += statSync(join(e.parentPath, e.name)).size;
  }
  return n;
}

async function main(): Promise<void> {
  const ds = await ensureDataset(EVENTS, '/tmp/svc-bench', { days: Number(a.days), hosts: Number(a.hosts) });
  const bodies: Buffer[] = [];
  for (const lines of lineBatches(ds.path, Number(a.batch))) bodies.push(Buffer.from(lines.join('\n') + '\n'));
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-report-'));
  const srv = await startServer(dataDir, {
    env: Object.fromEntries(a.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  });
  const out: string[] = [];
  const row = (figure: string, value: string, beside = '') => out.push(`| ${figure} | ${value} | ${beside} |`);
  try {
    const { admin, ingest } = await benchCredentials(srv.url);
    // --- ingest
    const agent = new http.Agent({ keepAlive: true, maxSockets: Number(a.clients) });
    const url = new URL(srv.url);
    const lat: number[] = [];
    let next = 0;
    let acked = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: Number(a.clients) }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const s = performance.now();
          const n = await post(agent, url, '/api/ingest?index=main', ingest, body, {
            'content-type': 'application/x-ndjson',
          });
          acked += n;
          lat.push(performance.now() - s);
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    agent.destroy();
    row(
      'native ingest, durable acks',
      `${Math.round(acked / secs).toLocaleString('en')} ev/s, p99 batch ${ms(pct(lat, 99))} (p50 ${ms(pct(lat, 50))})`,
      `${acked.toLocaleString('en')} events, ${a.clients} clients × ${a.batch}-line NDJSON`,
    );

    const search = async (q: string) => {
      const qs = new URLSearchParams({
        q,
        from: new Date(ds.startUs / 1000 - 86_400_000).toISOString(),
        to: new Date(ds.endUs / 1000 + 86_400_000).toISOString(),
      });
      const s = performance.now();
      const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${admin}` } });
      const body = (await res.json()) as { meta?: { matched: number }; rows?: unknown[] };
      if (!res.ok) throw new Error(`${q}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - s, matched: body.meta?.matched ?? 0 };
    };
    const repeat = async (q: string, forSecs: number, minRuns = 3) => {
      const times: number[] = [];
      let matched = 0;
      const until = performance.now() + forSecs * 1000;
      while (times.length < minRuns || performance.now() < until) {
        const r = await search(q);
        times.push(r.ms);
        matched = r.matched;
      }
      return { median: pct(times, 50), p90: pct(times, 90), runs: times.length, matched };
    };

    // --- right after the load: seals and merges still running
    const rareQ = ds.rareTerm;
    const rare1 = await repeat(rareQ, SECS);
    const stats1 = await repeat('* | stats count by host', SECS);
    row(
      'rare term right after the load',
      `${ms(rare1.median)} median, p90 ${ms(rare1.p90)} (${rare1.runs} runs)`,
      `matched ${rare1.matched}`,
    );
    row(
      '`stats count by host` right after the load',
      `${ms(stats1.median)} median, p90 ${ms(stats1.p90)} (${stats1.runs} runs)`,
      '',
    );

    // --- settled: no WAL left to seal (only the open segment) for 5 s
    const walDir = join(dataDir, 'wal');
    const settleStart = performance.now();
    let quietSince = performance.now();
    let last = -1;
    while (performance.now() - quietSince < 5000 && performance.now() - settleStart < 600_000) {
      const segs = readdirSync(walDir).filter((f) => /^\d+\.wal$/.test(f) || f.endsWith('.ndjson')).length;
      const blocks = du(join(dataDir, 'blocks'), (n) => n.endsWith('.parquet'));
      const state = segs * 1e12 + blocks;
      if (state !== last) quietSince = performance.now();
      last = state;
      await new Promise((r) => setTimeout(r, 500));
    }
    row(
      'settling (seals and merges after the last ack)',
      `${((performance.now() - settleStart - 5000) / 1000).toFixed(1)} s`,
      '',
    );

    const cases = [
      { name: 'rare term, settled', q: rareQ, grep: ['-c', '-F', '-w', rareQ] },
      { name: '`stats count by host`, settled', q: '* | stats count by host', grep: ['-c', ''] },
      { name: 'phrase `"Failed password"`', q: '"Failed password"', grep: ['-c', '-i', '-F', 'Failed password'] },
      { name: `common term \`${ds.commonTerm}\``, q: ds.commonTerm, grep: ['-c', '-i', '-w', ds.commonTerm] },
      { name: 'common term `GET`', q: 'GET', grep: ['-c', '-i', '-w', 'GET'] },
    ];
    for (const c of cases) {
      const r = await repeat(c.q, 0, 7);
      const g = grep(c.grep, ds.path);
      row(
        c.name,
        `${ms(r.median)} (matched ${r.matched.toLocaleString('en')})`,
        `grep -c ${ms(g.ms)} (${g.count.toLocaleString('en')})`,
      );
    }

    // --- bytes
    const parquet = du(join(dataDir, 'blocks'), (n) => n.endsWith('.parquet'));
    const sidecars = du(join(dataDir, 'blocks'), (n) => n.endsWith('.json'));
    const t = performance.now();
    const zstd = Number(
      execFileSync('sh', ['-c', `zstd -3 -q -c ${JSON.stringify(ds.path)} | wc -c`], { encoding: 'utf8' }).trim(),
    );
    const zstdSecs = (performance.now() - t) / 1000;
    const ours = ds.bytes / (parquet + sidecars);
    const theirs = ds.bytes / zstd;
    row(
      'bytes on disk (blocks + sidecars)',
      `${ours.toFixed(2)}× smaller than raw (${((parquet + sidecars) / 2 ** 20).toFixed(0)} MiB; sidecars ${(sidecars / 2 ** 20).toFixed(1)} MiB)`,
      `zstd -3: ${theirs.toFixed(2)}× (${(zstd / 2 ** 20).toFixed(0)} MiB, ${zstdSecs.toFixed(1)} s); ours / zstd = ${(ours / theirs).toFixed(2)}`,
    );
    row('peak RSS (server)', `${peakRssMiB(srv.pid).toFixed(0)} MiB`, '');
  } finally {
    await srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    `\n${EVENTS.toLocaleString('en')} events, ${a.days} days, ${a.hosts} hosts, ${(ds.bytes / 2 ** 20).toFixed(0)} MiB NDJSON (${ds.path})\n`,
  );
  console.log('| figure | svc | beside |');
  console.log('|---|---|---|');
  for (const r of out) console.log(r);
}

await main();
