/**
 * Native ingest over HTTP with durable acknowledgements, against a real svc process.
 *
 * Starts `node --import tsx src/main.ts` on a temporary data dir and a free port, creates an
 * ingest token, then posts pre-built request bodies made of the real lines in SVC_REAL_DATA
 * (default ../shared/data/real) from concurrent keep-alive connections. Every request is counted
 * only when answered 200 (the events are fsynced in the WAL by then).
 * Prints events/s, MB/s, p50/p99 request latency and the server's peak RSS (VmHWM).
 *
 * Usage: npx tsx bench/ingest-http.ts [--events 2000000] [--batch 5000] [--concurrency 4]
 *        [--format text|ndjson] [--gzip] [--cpu-prof dir]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { loadRealLines, realDataDir } from './lib/dataset.js';
import { benchCredentials, ingestRun, peakRssMiB, startServer } from './lib/server.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    format: { type: 'string', default: 'text' },
    gzip: { type: 'boolean', default: false },
    /** Directory for a V8 CPU profile of the server (--cpu-prof), written when it stops. */
    'cpu-prof': { type: 'string' },
  },
});
const TOTAL = Number(args.events);
const BATCH = Number(args.batch);
const CONC = Number(args.concurrency);
const NDJSON = args.format === 'ndjson';
const DATA = realDataDir();

function realLines(): string[] {
  if (!existsSync(DATA)) throw new Error(`no real data at ${DATA} (set SVC_REAL_DATA)`);
  return loadRealLines(DATA).map((l) => l.text);
}

/** Request bodies of BATCH events each, cycling through the real lines. */
function buildBodies(lines: string[]): Buffer[] {
  const bodies: Buffer[] = [];
  let k = 0;
  for (let b = 0; b < 40; b++) {
    const part: string[] = [];
    for (let i = 0; i < BATCH; i++, k++) {
      const l = lines[k % lines.length];
      part.push(NDJSON ? (l.startsWith('{') ? l : JSON.stringify({ message: l, host: `h${k % 50}`, n: k })) : l);
    }
    const raw = Buffer.from(part.join('\n') + '\n');
    bodies.push(args.gzip ? gzipSync(raw) : raw);
  }
  return bodies;
}

async function main(): Promise<void> {
  const lines = realLines();
  const bodies = buildBodies(lines);
  const bodyBytes = bodies.reduce((a, b) => a + b.length, 0) / bodies.length;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const srv = await startServer(dataDir, { cpuProfDir: args['cpu-prof'] });
  try {
    const { ingest: secret } = await benchCredentials(srv.url);
    const url = new URL(srv.url);
    const headers: Record<string, string> = {
      'content-type': NDJSON ? 'application/x-ndjson' : 'text/plain',
      ...(args.gzip ? { 'content-encoding': 'gzip' } : {}),
    };
    const requests = Math.ceil(TOTAL / BATCH);
    const {
      events: ingested,
      secs,
      lat,
    } = await ingestRun(url, '/api/ingest?index=bench', secret, bodies, requests, CONC, headers);
    lat.sort((a, b) => a - b);
    const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))].toFixed(1);
    console.log(
      `data: ${lines.length} real lines from ${DATA}, format ${NDJSON ? 'ndjson' : 'text'}${args.gzip ? ' gzip' : ''}, ${BATCH} events/request (${(bodyBytes / 1024).toFixed(0)} KiB), ${CONC} connections`,
    );
    console.log(
      `ingested ${ingested} events in ${secs.toFixed(2)} s: ${Math.round(ingested / secs).toLocaleString('en-US')} events/s, ${((bodyBytes * requests) / secs / 1048576).toFixed(1)} MiB/s of request bodies`,
    );
    console.log(
      `request latency (durable ack): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`,
    );
    console.log(`server peak RSS: ${peakRssMiB(srv.pid).toFixed(0)} MiB`);
  } finally {
    await srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
