/**
 * svc beside ClickHouse on the same machine, file, batches and queries (issue 27).
 *
 *   npx tsx bench/vs-clickhouse.ts [--events 1000000] [--batch 20000] [--clients 4] [--days 7]
 *     [--hosts 200] [--runs 5] [--after 2] [--settle 30] [--json out.json] [--keep]
 *
 * 1. Installs ClickHouse from the distribution's packages when missing (Debian bookworm: 18.16) and
 *    runs a clickhouse-server of its own on a temp dir and free ports (bench/lib/clickhouse.ts).
 * 2. Writes one NDJSON file (bench/lib/vs-data.ts): N events `_time`, `host`, `message` of real log
 *    lines, a random 12-character term planted 10 times, spread evenly.
 * 3. Loads it into svc (native `POST /api/ingest`, acked once fsync'd) and then into ClickHouse
 *    (`INSERT … FORMAT JSONEachRow` over HTTP, acked without fsync), the same batches over the same
 *    number of keep-alive connections; one system at a time, each in its own process.
 * 4. Runs the same queries on each, `--runs` times (the median counts), `--after` seconds after the
 *    last ack and again `--settle` seconds after it. Every answer is checked against the counts of
 *    the file itself (counted while writing it, with svc's whole-token rule); a mismatch is printed
 *    loudly and makes the exit code 1.
 * 5. CPU per event during the load (the process's user + system time, all threads), bytes stored
 *    (svc: blocks + WAL; ClickHouse: active parts' bytes_on_disk) and peak RSS (VmHWM).
 * Prints one table, svc / ClickHouse per row, with whether higher or lower is better; `--json`
 * writes it to a file. `--keep` keeps the temp dir (data file, both data dirs, ClickHouse's log).
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib/args.js';
import { ensureClickHouseInstalled } from './lib/clickhouse.js';
import { lineBatches } from './lib/events.js';
import { buildServer, closedLoop, cpuSeconds, peakRssMiB, type IngestRun } from './lib/server.js';
import { writeVsData, type Truth, type VsData } from './lib/vs-data.js';
import { clickHouseTarget, svcTarget, type Answer, type Batch, type Target, type VsQuery } from './lib/vs-targets.js';

const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '4' },
    days: { type: 'string', default: '7' },
    hosts: { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
    after: { type: 'string', default: '2' },
    settle: { type: 'string', default: '30' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    /** svc alone (no ClickHouse install or run): its column of the table, for iterating on svc. */
    'svc-only': { type: 'boolean', default: false },
    /** Settings for svc, `K=V` comma-separated (e.g. SVC_PART_MIN_EVENTS=0); the bench otherwise clears SVC_*. */
    'svc-env': { type: 'string', default: '' },
    /** Directory for V8 CPU profiles of svc's threads (main and decode workers), written when it stops. */
    'cpu-prof': { type: 'string' },
    /** Run svc under tsx (src/) instead of its build (dist/, built first): what a developer runs, not an operator. */
    dev: { type: 'boolean', default: false },
  },
});
const RUNS = Number(a.runs);
const MOMENTS = [
  { name: `${a.after} s after the load`, secs: Number(a.after) },
  { name: `settled (${a.settle} s after)`, secs: Number(a.settle) },
];
const COMMON = 'GET';
const PHRASE = 'Failed password';

/** ClickHouse's whole-token match of svc's rule. `(?i)` is unusable in 18.16: its substring prefilter ignores it. */
function chTerm(term: string): string {
  const re = term.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `SELECT count() FROM logs WHERE match(lower(message), '${`\\b${re}\\b`.replace(/[\\']/g, '\\$&')}')`;
}

function queries(rare: string): VsQuery[] {
  return [
    { name: 'rare term', kind: 'count', svc: rare, ch: chTerm(rare) },
    {
      name: 'stats count by host',
      kind: 'groups',
      svc: '* | stats count by host',
      ch: 'SELECT host, count() FROM logs GROUP BY host',
    },
    {
      name: 'timechart',
      kind: 'groups',
      svc: '* | timechart span=1h count',
      ch: 'SELECT toUnixTimestamp(toStartOfHour(_time)) * 1000 AS hour, count() FROM logs GROUP BY hour',
    },
    { name: `common term \`${COMMON}\``, kind: 'count', svc: COMMON, ch: chTerm(COMMON) },
    { name: `phrase \`"${PHRASE}"\``, kind: 'count', svc: `"${PHRASE}"`, ch: chTerm(PHRASE) },
  ];
}

/** The answer the file says a query must give. */
function expected(q: VsQuery, data: VsData): Answer {
  const t: Truth = data.truth;
  if (q.name === 'rare term') return t.terms[data.rareTerm];
  if (q.name === 'stats count by host') return t.hosts;
  if (q.name === 'timechart') return new Map([...t.hours].map(([h, n]) => [String(h), n]));
  return t.terms[q.svc.replaceAll('"', '')];
}

function same(x: Answer, y: Answer): boolean {
  if (typeof x === 'number' || typeof y === 'number') return x === y;
  return x.size === y.size && [...x].every(([k, n]) => y.get(k) === n);
}

function describe(x: Answer): string {
  if (typeof x === 'number') return x.toLocaleString('en');
  return `${x.size} groups, ${[...x.values()].reduce((s, n) => s + n, 0).toLocaleString('en')} events`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

type Load = IngestRun;

/** Sends every batch over `clients` keep-alive connections, each sending its next batch once the last is acked. */
function load(t: Target, batches: Batch[], clients: number): Promise<Load> {
  return closedLoop(batches.length, clients, (agent, i) => t.send(agent, batches[i]));
}

/** Figures of one system: the load, each query's median per moment, bytes, peak RSS. */
interface Figures {
  load: Load;
  /** CPU seconds the process used from the first batch to the last ack, all threads. */
  loadCpu: number;
  rssLoadMiB: number;
  rssMiB: number;
  stored: number;
  /** `moment/query` → median ms */
  ms: Record<string, number>;
  mismatches: string[];
}

async function timeQueries(t: Target, qs: VsQuery[], data: VsData, moment: string, f: Figures): Promise<void> {
  for (const q of qs) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const got = await t.answer(q);
      times.push(performance.now() - s);
      const want = expected(q, data);
      if (!same(got, want)) {
        f.mismatches.push(
          `${t.name}, ${q.name}, ${moment}: answered ${describe(got)}, the file holds ${describe(want)}`,
        );
      }
    }
    f.ms[`${moment}/${q.name}`] = median(times);
  }
}

async function measure(t: Target, batches: Batch[], data: VsData): Promise<Figures> {
  try {
    console.error(`${t.name}: loading ${data.events.toLocaleString('en')} events`);
    const cpu0 = cpuSeconds(t.pid);
    const done = await load(t, batches, Number(a.clients));
    const end = performance.now();
    const loadCpu = cpuSeconds(t.pid) - cpu0;
    const f: Figures = {
      load: done,
      loadCpu,
      rssLoadMiB: peakRssMiB(t.pid),
      rssMiB: 0,
      stored: 0,
      ms: {},
      mismatches: [],
    };
    if (done.events !== data.events)
      f.mismatches.push(`${t.name} acknowledged ${done.events} of ${data.events} events`);
    for (const m of MOMENTS) {
      await sleep(end + m.secs * 1000 - performance.now());
      console.error(`${t.name}: queries, ${m.name}`);
      await timeQueries(t, queries(data.rareTerm), data, m.name, f);
    }
    f.stored = await t.storedBytes();
    f.rssMiB = peakRssMiB(t.pid);
    return f;
  } finally {
    await t.stop();
  }
}

interface Row {
  row: string;
  svc: number;
  clickhouse: number;
  unit: string;
  better: 'higher' | 'lower';
}

function rows(s: Figures, c: Figures | undefined, data: VsData): Row[] {
  const NONE: Figures = {
    load: { events: NaN, secs: 1, lat: [NaN] },
    loadCpu: NaN,
    rssLoadMiB: NaN,
    rssMiB: NaN,
    stored: NaN,
    ms: {},
    mismatches: [],
  };
  c ??= NONE;
  const p99 = (l: Load) => [...l.lat].sort((x, y) => x - y)[Math.floor(0.99 * (l.lat.length - 1))];
  const out: Row[] = [
    {
      row: 'ingest, acked (svc fsync, CH no fsync)',
      svc: s.load.events / s.load.secs,
      clickhouse: c.load.events / c.load.secs,
      unit: 'ev/s',
      better: 'higher',
    },
    { row: 'batch ack p99', svc: p99(s.load), clickhouse: p99(c.load), unit: 'ms', better: 'lower' },
    {
      row: 'CPU per event during the load, all threads',
      svc: (s.loadCpu / s.load.events) * 1e6,
      clickhouse: (c.loadCpu / c.load.events) * 1e6,
      unit: 'µs',
      better: 'lower',
    },
  ];
  for (const m of MOMENTS) {
    for (const q of queries(data.rareTerm)) {
      const k = `${m.name}/${q.name}`;
      out.push({ row: `${q.name}, ${m.name}`, svc: s.ms[k], clickhouse: c.ms[k] ?? NaN, unit: 'ms', better: 'lower' });
    }
  }
  out.push(
    { row: 'bytes stored', svc: s.stored / 2 ** 20, clickhouse: c.stored / 2 ** 20, unit: 'MiB', better: 'lower' },
    { row: 'raw / stored', svc: data.bytes / s.stored, clickhouse: data.bytes / c.stored, unit: '×', better: 'higher' },
    { row: 'peak RSS during the load', svc: s.rssLoadMiB, clickhouse: c.rssLoadMiB, unit: 'MiB', better: 'lower' },
    { row: 'peak RSS, whole run', svc: s.rssMiB, clickhouse: c.rssMiB, unit: 'MiB', better: 'lower' },
  );
  return out;
}

function fmt(x: number, unit: string): string {
  const digits = unit === '×' ? 2 : x < 10 ? 1 : 0;
  return `${x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit === '×' ? '' : ' '}${unit}`;
}

function print(table: Row[], machine: Record<string, unknown>, data: VsData, mismatches: string[]): void {
  console.log(`\n${JSON.stringify(machine)}`);
  console.log(
    `${data.events.toLocaleString('en')} events, ${a.days} days, ${a.hosts} hosts, ${(data.bytes / 2 ** 20).toFixed(0)} MiB NDJSON; ` +
      `${a.clients} clients × ${a.batch}-line batches; queries: median of ${RUNS}; rare term \`${data.rareTerm}\`\n`,
  );
  console.log('| row | svc | ClickHouse | svc / CH | better |');
  console.log('|---|---:|---:|---:|---|');
  for (const r of table) {
    console.log(
      `| ${r.row} | ${fmt(r.svc, r.unit)} | ${fmt(r.clickhouse, r.unit)} | ${(r.svc / r.clickhouse).toFixed(2)}× | ${r.better} |`,
    );
  }
  const t = data.truth.terms;
  console.log(
    `\ncounts checked against the file (counted in JS with svc's whole-token rule): rare ${t[data.rareTerm]}, ` +
      `${COMMON} ${t[COMMON].toLocaleString('en')}, "${PHRASE}" ${t[PHRASE].toLocaleString('en')}, ` +
      `${data.truth.hosts.size} hosts, ${data.truth.hours.size} hours`,
  );
  if (mismatches.length === 0) console.log('every answer of both systems matched the file');
  for (const m of mismatches) console.log(`!!! COUNT MISMATCH: ${m}`);
}

function svcEnv(): Record<string, string> {
  const pairs = a['svc-env'].split(',').filter((p) => p.includes('='));
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

function readBatches(path: string, size: number): Batch[] {
  const out: Batch[] = [];
  for (const lines of lineBatches(path, size))
    out.push({ body: Buffer.from(lines.join('\n') + '\n'), lines: lines.length });
  return out;
}

async function main(): Promise<void> {
  if (!a['svc-only']) ensureClickHouseInstalled();
  if (!a.dev) buildServer();
  const tmp = mkdtempSync(join(tmpdir(), 'svc-vs-ch-'));
  try {
    const data = await writeVsData(join(tmp, 'events.ndjson'), {
      events: Number(a.events),
      days: Number(a.days),
      hosts: Number(a.hosts),
      terms: [COMMON, PHRASE],
    });
    const batches = readBatches(data.path, Number(a.batch));
    const machine = {
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      node: process.version,
      svc: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout?.trim() || '?',
      loadavg: loadavg().map((x) => Number(x.toFixed(2))),
    };
    // the search window of svc: the data's days and a day on each side
    const svc = await measure(
      await svcTarget(
        join(tmp, 'svc'),
        data.startMs - 86_400_000,
        data.endMs + 86_400_000,
        svcEnv(),
        a['cpu-prof'],
        !a.dev,
      ),
      batches,
      data,
    );
    const ch = a['svc-only'] ? undefined : await clickHouseTarget(join(tmp, 'clickhouse'));
    const chVersion = ch?.version ?? 'not run';
    const chf = ch && (await measure(ch, batches, data));
    const table = rows(svc, chf, data);
    const mismatches = [...svc.mismatches, ...(chf?.mismatches ?? [])];
    print(table, { ...machine, clickhouse: chVersion }, data, mismatches);
    if (a.json) {
      const info = { events: data.events, bytes: data.bytes, rareTerm: data.rareTerm, counts: data.truth.terms };
      writeFileSync(
        a.json,
        JSON.stringify(
          { machine: { ...machine, clickhouse: chVersion }, data: info, rows: table, mismatches },
          null,
          2,
        ),
      );
    }
    if (mismatches.length > 0) process.exitCode = 1;
  } finally {
    if (a.keep) console.error(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
