/**
 * Searches right after a load: the data set is written through the Writer as fast as it is
 * acknowledged, and the moment the last batch is durable the same searches as bench/query.ts run
 * again and again while the engine seals and merges what just arrived. Reports each search's
 * median and p90 during that background work, then once the engine is settled (everything sealed,
 * merges done), so the two can be compared on the same data.
 *
 *   npx tsx bench/query-under-load.ts [--events 1000000] [--secs 20]
 *
 * Each search runs in turn for --secs seconds after the load; `background` says how many seals
 * and merges were still to run when each window started (0: settled).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { SYSTEM_PRINCIPAL } from '../src/auth/principal.js';
import { systemClock } from '../src/clock/clock.js';
import { QueryService } from '../src/query/service.js';
import { ensureDataset } from './lib/dataset.js';
import { lineBatches, lineToEvent } from './lib/events.js';
import { benchControl as control, openEngine } from './lib/load.js';
import { numArg } from './lib/args.js';

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function main(): Promise<void> {
  const events = numArg('events', 1_000_000);
  const secs = numArg('secs', 20);
  const ds = await ensureDataset(events);
  const dir = `/tmp/svc-bench/under-load-${events}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const engine = await openEngine(dir);
  const svc = new QueryService({ store: engine, control, clock: systemClock });
  const cases = [
    { name: 'rare term', q: ds.rareTerm },
    { name: 'stats count by host', q: '* | stats count by host' },
  ];

  const t0 = performance.now();
  const running = new Set<Promise<void>>();
  for (const lines of lineBatches(ds.path, 20_000)) {
    const p: Promise<void> = engine.writer
      .write(
        lines.map((l) => lineToEvent(l)),
        { wait: true },
      )
      .then(() => void running.delete(p));
    running.add(p);
    if (running.size >= 4) await Promise.race(running);
  }
  await Promise.all(running);
  const loadSecs = (performance.now() - t0) / 1000;
  console.log(
    `loaded ${events.toLocaleString('en')} events in ${loadSecs.toFixed(1)} s (${Math.round(events / loadSecs).toLocaleString('en')} events/s, durable acks); searching at once`,
  );

  const window = async (label: string) => {
    const out: string[] = [];
    for (const c of cases) {
      const before = engine.stats();
      const times: number[] = [];
      const until = performance.now() + secs * 1000;
      let matched = 0;
      while (performance.now() < until) {
        const s = performance.now();
        const r = await svc.search(SYSTEM_PRINCIPAL, { q: c.q });
        times.push(performance.now() - s);
        matched = r.rows ? r.rows.length : r.meta.matched;
      }
      out.push(
        `| ${label} | ${c.name} | ${times.length} | ${pct(times, 50).toFixed(0)} | ${pct(times, 90).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${matched} | ${before.liveSegments} live segments, ${before.blocks} blocks |`,
      );
    }
    return out;
  };
  const rows = await window('right after the load');
  await engine.flush();
  await engine.mergeRound();
  rows.push(...(await window('settled')));
  console.log('');
  console.log('| when | search | runs | median ms | p90 ms | max ms | matched | engine at the start |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
