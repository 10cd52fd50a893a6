/**
 * Query benchmark: loads the shared data set (bench/lib/dataset.ts, 5M events by default) into a
 * storage engine once, then times searches through the SearchService, each beside `grep -c` over
 * the same raw NDJSON.
 *
 *   npx tsx bench/query.ts [--events 5000000] [--runs 7] [--reload]
 *
 * The loaded data dir (/tmp/svc-bench/query-data-<N>) is reused across runs; --reload rebuilds it.
 * Reports min / median / max wall time of the SearchService call (parse, plan, DuckDB, shaping),
 * after one warm-up run. Goals (issue 2): rare term ≤ 100 ms, stats count by host ≤ 50 ms,
 * timechart span=1h count ≤ 100 ms.
 */
import { cpus } from 'node:os';
import { SYSTEM_PRINCIPAL } from '../src/auth/principal.js';
import { lineBatches } from './lib/events.js';
import { openQueryBench } from './lib/load.js';
import { grepMs, numArg, timeRuns } from './lib/args.js';

/**
 * A term in very few events: the first HDFS block id in the data set (copy 0 of a line is real;
 * later copies shift 5+ digit runs, so the id recurs only by chance).
 */
function rareTerm(path: string): string {
  for (const batch of lineBatches(path, 100_000)) {
    for (const l of batch) {
      // `blk_123…` is one token (`_` is a word character); grep -w agrees
      const m = /blk_\d{9,}/.exec(l);
      if (m) return m[0];
    }
  }
  return 'nosuchtoken';
}

async function main(): Promise<void> {
  const events = numArg('events', 5_000_000);
  const runs = numArg('runs', 7);
  const { ds, engine, svc, openMs } = await openQueryBench(events);
  const s = engine.stats();

  const rare = rareTerm(ds.path);
  const cases: { name: string; q: string; grep?: string[] }[] = [
    { name: 'rare term', q: rare, grep: ['-c', '-F', '-w', rare] },
    { name: 'common term', q: ds.commonTerm, grep: ['-c', '-i', '-w', ds.commonTerm] },
    { name: 'stats count by host', q: '* | stats count by host', grep: ['-c', ''] },
    { name: 'timechart span=1h count', q: '* | timechart span=1h count', grep: ['-c', ''] },
    { name: 'field filter', q: 'id.resp_p=22', grep: ['-c', '"id.resp_p":22[,}]'] },
    {
      name: 'field filter + stats',
      q: 'sourcetype=hdfs | stats count by host | sort -count | head 5',
      grep: ['-c', '-F', '"sourcetype":"hdfs"'],
    },
    {
      name: 'phrase',
      q: '"Failed password for invalid user"',
      grep: ['-c', '-i', '-F', 'Failed password for invalid user'],
    },
  ];
  const rows: string[] = [];
  for (const c of cases) {
    const first = await svc.search(SYSTEM_PRINCIPAL, { q: c.q }).catch((e: Error) => e);
    if (first instanceof Error) {
      rows.push(`| ${c.name} | \`${c.q}\` | failed: ${first.message.split('\n')[0]} | | | | |`);
      continue;
    }
    const t = await timeRuns(runs, () => svc.search(SYSTEM_PRINCIPAL, { q: c.q }));
    const g = c.grep ? grepMs(c.grep, ds.path) : undefined;
    const answer = first.rows ? `${first.rows.length} rows` : `${first.events.length} events`;
    rows.push(
      `| ${c.name} | \`${c.q}\` | ${t.min.toFixed(1)} | ${t.median.toFixed(1)} | ${t.max.toFixed(1)} | ${first.meta.matched} (${answer}) | ${g ? `${g.ms.toFixed(0)} ms (${g.count})` : ''} |`,
    );
  }
  console.log(
    `query benchmark: ${ds.events.toLocaleString('en')} events (${(ds.bytes / 2 ** 20).toFixed(0)} MiB NDJSON), ${s.blocks} blocks, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), reopen ${openMs.toFixed(0)} ms`,
  );
  console.log('');
  console.log('| case | query | min ms | median ms | max ms | matched | grep -c (count) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  await engine.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
