/**
 * Delete by query: the rewrite of the blocks a delete touches, on generated events.
 *
 *   npx tsx bench/delete.ts [--events 1000000] [--every 100]
 *
 * Writes `--events` events (one day, 20 hosts, a `user` field with 1 in `--every` events
 * `user=alice`) into env `default`, seals them into blocks (merges on, as in production: a few
 * large blocks), then runs the engine's side of a delete of `user=alice` over the day the way a
 * job does (src/deletes/run-part.ts: seal, pick the blocks in scope, rewrite each). Prints the
 * events in the rewritten blocks per second (each is read and written again), the events deleted,
 * the blocks, and the process's peak RSS (VmHWM: DuckDB's memory included).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LogEvent } from '../src/events/event.js';
import { deleteFilter } from '../src/deletes/filter.js';
import { openEngine } from './lib/load.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, every: { type: 'string', default: '100' } },
});
const EVENTS = Number(args.events);
const EVERY = Number(args.every);
const DAY_MS = Date.UTC(2026, 9, 1);

function batch(from: number, n: number): LogEvent[] {
  const out: LogEvent[] = [];
  for (let i = from; i < from + n; i++) {
    const user = i % EVERY === 0 ? 'alice' : `user${i % 997}`;
    out.push({
      timeUs: (DAY_MS + Math.floor((i / EVENTS) * 86_400_000)) * 1000,
      env: 'default',
      index: 'main',
      host: `host-${i % 20}`,
      source: '/var/log/app.log',
      sourcetype: 'app',
      message: `request ${i} from ${user} path=/api/v${i % 7}/items status=${i % 13 === 0 ? 500 : 200} took=${i % 250}ms`,
      fields: { user, status: i % 13 === 0 ? 500 : 200, took_ms: i % 250 },
    });
  }
  return out;
}

/** Peak RSS of this process (VmHWM), MiB. */
function peakRssMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 2 ** 20;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-delete-'));
const engine = await openEngine(dir);
try {
  for (let i = 0; i < EVENTS; i += 50_000)
    await engine.writer.write(batch(i, Math.min(50_000, EVENTS - i)), { wait: true });
  await engine.flush();
  await engine.mergeRound(true);
  const rssBefore = peakRssMiB();
  const spec = {
    env: 'default',
    index: null,
    from: new Date(DAY_MS).toISOString(),
    to: new Date(DAY_MS + 86_400_000).toISOString(),
    fromUs: DAY_MS * 1000,
    toUs: (DAY_MS + 86_400_000) * 1000,
    query: 'user=alice',
  };
  const filter = deleteFilter(spec, Date.now());
  const t0 = performance.now();
  await engine.flush();
  const names = await engine.deleting.begin(filter);
  const touched = engine
    .listBlocks()
    .filter((b) => names.includes(b.meta.name))
    .reduce((n, b) => n + b.meta.count, 0);
  let deleted = 0;
  for (const name of names) deleted += (await engine.deleting.rewrite(name, filter, () => undefined))?.deleted ?? 0;
  const secs = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({
      events: EVENTS,
      blocks: names.length,
      eventsInRewrittenBlocks: touched,
      deleted,
      expectedDeleted: Math.ceil(EVENTS / EVERY),
      secs: Number(secs.toFixed(2)),
      eventsPerSec: Math.round(touched / secs),
      peakRssMiBBeforeDelete: Math.round(rssBefore),
      peakRssMiB: Math.round(peakRssMiB()),
    }),
  );
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
