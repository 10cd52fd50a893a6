/**
 * Search-time extraction benchmark: on the shared data set (bench/lib/dataset.ts, real lines
 * cycled to N events, loaded into a storage engine once), times searches on fields found in the
 * message (known layouts, key=value, JSON) beside the same question asked with a term, and
 * `grep -c` over the raw NDJSON.
 *
 *   npx tsx bench/extract.ts [--events 1000000] [--runs 5] [--reload]
 *
 * Reports min / median / max of the SearchService call after one warm-up, the events matched, and
 * the process's peak RSS.
 */
import { cpus } from 'node:os';
import { SYSTEM_PRINCIPAL } from '../src/auth/principal.js';
import { openQueryBench } from './lib/load.js';
import { grepMs, numArg, timeRuns } from './lib/args.js';

function grepText(args: string[], file: string): string {
  const g = grepMs(args, file);
  return `${g.ms.toFixed(0)} ms (${g.count})`;
}

async function main(): Promise<void> {
  const events = numArg('events', 1_000_000);
  const runs = numArg('runs', 5);
  const { ds, engine, svc } = await openQueryBench(events);
  const cases: { name: string; q: string; grep?: string[] }[] = [
    { name: 'term (for comparison)', q: 'sourcetype=apache_access 404' },
    { name: 'access layout, filter', q: 'status=404', grep: ['-c', '-E', '" 404 [0-9-]'] },
    { name: 'access layout, filter + stats', q: 'status=404 | stats count by clientip | sort -count | head 5' },
    { name: 'access layout, every event', q: 'sourcetype=apache_access | stats count by status' },
    { name: 'access layout, numeric', q: 'sourcetype=apache_access bytes>100000 | stats count' },
    { name: 'syslog layout, filter', q: 'program=sshd', grep: ['-c', '-F', ' sshd['] },
    { name: 'Java layouts, every event', q: '* | stats count by level' },
    { name: 'key=value, filter', q: 'rhost=220.117.241.87', grep: ['-c', '-F', 'rhost=220.117.241.87'] },
    { name: 'key=value, every event', q: '* | stats count by uid' },
    {
      name: 'extract pipe',
      q: 'sourcetype=apache_access | extract "\\"<method> <uri> <_>\\" <status> " | stats count by method',
    },
  ];
  const rows: string[] = [];
  for (const c of cases) {
    const first = await svc.search(SYSTEM_PRINCIPAL, { q: c.q });
    const t = await timeRuns(runs, () => svc.search(SYSTEM_PRINCIPAL, { q: c.q }));
    const answer = first.rows ? `${first.rows.length} rows` : `${first.events.length} events`;
    rows.push(
      `| ${c.name} | \`${c.q.replace(/\|/g, '\\|')}\` | ${t.min.toFixed(0)} | ${t.median.toFixed(0)} | ${t.max.toFixed(0)} | ${first.meta.matched} (${answer}), scanned ${first.meta.scanned} | ${c.grep ? grepText(c.grep, ds.path) : ''} |`,
    );
  }
  for (const q of ['*', 'sourcetype=apache_access']) {
    const n = (await svc.fields(SYSTEM_PRINCIPAL, { q })).fields.length;
    const t = await timeRuns(runs, () => svc.fields(SYSTEM_PRINCIPAL, { q }));
    rows.push(
      `| fields summary (10k newest) | \`${q}\` | ${t.min.toFixed(0)} | ${t.median.toFixed(0)} | ${t.max.toFixed(0)} | ${n} fields | |`,
    );
  }
  console.log(
    `extraction benchmark: ${ds.events.toLocaleString('en')} events, ${engine.stats().blocks} blocks, ${cpus().length} cores, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
  console.log('');
  console.log('| case | query | min ms | median ms | max ms | matched | grep -c |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  await engine.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
