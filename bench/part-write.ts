/**
 * The CPU cost of one decode worker's job on the parts path (issue 27), stage by stage, in this one
 * thread: decoding NDJSON bodies (ingest/native/decode.ts) and writing their events as parts
 * (storage/parts/part-build.ts: accounting, token filters, DuckDB appender, sorted ZSTD COPY, fsync).
 * The data is bench/vs-clickhouse.ts's: real log lines as `{"_time","host","message"}`, 200 hosts.
 * Prints µs per event of wall time for each stage and of CPU for the whole (the process's user +
 * system time, so DuckDB's COPY on its own thread counts), best of `--runs`.
 *
 *   npx tsx bench/part-write.ts [--events 200000] [--batch 20000] [--runs 5]
 */
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { timeContext } from '../src/events/timestamp.js';
import { decodeNdjson } from '../src/ingest/native/decode.js';
import { buildParts } from '../src/storage/parts/part-build.js';
import { writeVsData } from './lib/vs-data.js';

const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    batch: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '5' },
  },
});
const tmp = mkdtempSync(join(tmpdir(), 'svc-part-write-'));
try {
  const data = await writeVsData(join(tmp, 'events.ndjson'), {
    events: Number(a.events),
    days: 7,
    hosts: 200,
    terms: [],
  });
  const lines = readFileSync(data.path, 'utf8').split('\n').filter(Boolean);
  const bodies: Buffer[] = [];
  for (let i = 0; i < lines.length; i += Number(a.batch))
    bodies.push(Buffer.from(lines.slice(i, i + Number(a.batch)).join('\n') + '\n'));
  const db = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
  const c = await db.connect();
  const d = { env: 'default', index: 'main', host: '', source: '', sourcetype: '', timeUs: Date.now() * 1000 };
  const best = { decode: Infinity, parts: Infinity, cpu: Infinity };
  for (let r = 0; r < Number(a.runs); r++) {
    let decodeMs = 0;
    let partsMs = 0;
    const cpu0 = process.cpuUsage();
    for (const body of bodies) {
      const t0 = performance.now();
      const { events } = decodeNdjson(body, d, timeContext('UTC', Date.now()));
      const t1 = performance.now();
      const built = await buildParts(c, events, tmp);
      partsMs += performance.now() - t1;
      decodeMs += t1 - t0;
      for (const p of built) rmSync(p.tmp);
    }
    const cpu = process.cpuUsage(cpu0);
    best.decode = Math.min(best.decode, (decodeMs * 1000) / lines.length);
    best.parts = Math.min(best.parts, (partsMs * 1000) / lines.length);
    best.cpu = Math.min(best.cpu, (cpu.user + cpu.system) / lines.length);
  }
  c.closeSync();
  db.closeSync();
  const f = (x: number) => x.toFixed(2).padStart(6);
  console.log(`${lines.length.toLocaleString('en')} events in ${bodies.length} bodies, best of ${a.runs} runs`);
  console.log(`decode       ${f(best.decode)} µs/event (wall)`);
  console.log(`build parts  ${f(best.parts)} µs/event (wall)`);
  console.log(`all, CPU     ${f(best.cpu)} µs/event (user + system, all threads)`);
  console.log(`one thread could do ${Math.round(1e6 / (best.decode + best.parts)).toLocaleString('en')} events/s`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
