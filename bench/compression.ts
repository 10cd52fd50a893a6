/**
 * Compression benchmark (issue 14, item 4): bytes of the blocks beside the raw NDJSON and beside
 * `zstd -3` of the same file, the seal's CPU, and what sort order and Parquet options cost.
 *
 *   npx tsx bench/compression.ts [--events 1000000] [--days 30] [--hosts 300] [--rounds 2] [--variants all|none|a,b]
 *
 * 1. Loads the data set (bench/lib/dataset.ts; --days/--hosts give another shape) through the
 *    storage engine (Writer, seal, merge: the settings of block-writer.ts) and reports the blocks'
 *    bytes, the ratios and the process CPU of the load (JSON parse, WAL, seal, merge).
 * 2. Variants: rewrites every block of that load with one variant's ORDER BY and COPY options
 *    (`COPY (SELECT * FROM read_parquet(block) ORDER BY …) TO … (…)`), round-robin over --rounds so
 *    a busy neighbour on the shared machine hits every variant alike; reports bytes, the CPU and
 *    wall time of the COPYs, and a short-range search (15 minutes in the middle of the largest block:
 *    a count, a term count, the newest 100 events) with the row groups its `_time` statistics keep.
 *
 * Needs the `zstd` CLI (`apt-get install -y zstd`). Machine: whatever runs it (say so).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DATASET_DAYS, HOSTS, ensureDataset } from './lib/dataset.js';
import { loadDataDir } from './lib/load.js';
import { BLOCK_COPY_OPTIONS, blockOrderBy } from '../src/storage/blocks/block-writer.js';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

interface Variant {
  name: string;
  /** The rows of block `b` in this variant's order (the body of the COPY). */
  select: (c: DuckDBConnection, b: BlockInfo) => string | Promise<string>;
  options: string;
}

interface BlockInfo {
  path: string;
  rows: number;
  minUs: number;
  maxUs: number;
}

const ZSTD = (level: number, v2 = false, rowGroup = 122_880): string =>
  `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${level}, ROW_GROUP_SIZE ${rowGroup}${v2 ? ', PARQUET_VERSION V2' : ''}`;
const src = (b: BlockInfo): string => `read_parquet('${b.path}')`;
const by = (order: string) => (_c: DuckDBConnection, b: BlockInfo) => `SELECT * FROM ${src(b)} ORDER BY ${order}`;
const TIME = by('_time');
const HOST_FIRST = by('host, source, _time');
const SOURCE_FIRST = by('source, host, _time');
const HOUR_SOURCE = by("time_bucket(INTERVAL '1 hour', _time), source, host, _time");
/** Row groups cut from the time order (each holds the same rows as with TIME), sorted inside by source, host, time. */
const CUTS = (rowGroup: number) => async (c: DuckDBConnection, b: BlockInfo) =>
  `SELECT * FROM ${src(b)} ORDER BY ${await blockOrderBy(c, src(b), b.rows, rowGroup)}`;
const RG = CUTS(122_880);

const VARIANTS: Variant[] = [
  { name: 'time, zstd 3 (before)', select: TIME, options: ZSTD(3) },
  { name: 'host, source, time; zstd 3', select: HOST_FIRST, options: ZSTD(3) },
  { name: 'source, host, time; zstd 3', select: SOURCE_FIRST, options: ZSTD(3) },
  { name: '1 h bucket, source, host, time; zstd 3', select: HOUR_SOURCE, options: ZSTD(3) },
  { name: 'row groups cut by time, inside source, host, time; zstd 3', select: RG, options: ZSTD(3) },
  { name: 'time; zstd 3, V2', select: TIME, options: ZSTD(3, true) },
  { name: 'time; zstd 9, V2', select: TIME, options: ZSTD(9, true) },
  { name: 'cut row groups; zstd 3, V2', select: RG, options: ZSTD(3, true) },
  { name: 'cut row groups; zstd 6, V2', select: RG, options: ZSTD(6, true) },
  { name: 'cut row groups; zstd 9, V2', select: RG, options: ZSTD(9, true) },
  { name: 'cut row groups; zstd 12, V2', select: RG, options: ZSTD(12, true) },
  { name: 'cut row groups of 500k; zstd 9, V2', select: CUTS(500_000), options: ZSTD(9, true, 500_000) },
  { name: 'engine (block-writer.ts)', select: RG, options: BLOCK_COPY_OPTIONS },
];

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, ext));
    else if (e.name.endsWith(ext)) out.push(p);
  }
  return out.sort();
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const mb = (n: number): string => (n / 1e6).toFixed(2);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[], d = 1): string => {
  const lo = Math.min(...xs).toFixed(d);
  const hi = Math.max(...xs).toFixed(d);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** `zstd -3` of the raw file: its bytes and seconds (one thread, as a log shipper would). */
function zstd3(path: string): { bytes: number; secs: number } {
  const out = '/tmp/svc-bench/compression-raw.zst';
  const t0 = performance.now();
  const r = spawnSync('zstd', ['-3', '-T1', '-q', '-f', '-o', out, path]);
  if (r.status !== 0) throw new Error(`cannot run zstd (apt-get install -y zstd): ${r.stderr?.toString() ?? r.error}`);
  const secs = (performance.now() - t0) / 1000;
  const bytes = statSync(out).size;
  rmSync(out);
  return { bytes, secs };
}

async function rows<T>(c: DuckDBConnection, sql: string): Promise<T[]> {
  return (await c.runAndReadAll(sql)).getRows() as T[];
}

async function blockInfo(c: DuckDBConnection, path: string): Promise<BlockInfo> {
  const [[n, lo, hi]] = await rows<[bigint, bigint, bigint]>(
    c,
    `SELECT count(*), epoch_us(min(_time)), epoch_us(max(_time)) FROM read_parquet('${path}')`,
  );
  return { path, rows: Number(n), minUs: Number(lo), maxUs: Number(hi) };
}

interface Sample {
  bytes: number;
  cpuS: number;
  wallS: number;
  countMs: number;
  termMs: number;
  newestMs: number;
  rowGroups: string;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function timed(c: DuckDBConnection, sql: string, runs = 5): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await c.runAndReadAll(sql);
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/** The short-range search: 15 minutes in the middle of `b`, over its rewritten file `f`. */
async function shortRange(
  c: DuckDBConnection,
  b: BlockInfo,
  f: string,
): Promise<Pick<Sample, 'countMs' | 'termMs' | 'newestMs' | 'rowGroups'>> {
  const mid = Math.floor((b.minUs + b.maxUs) / 2);
  const where = `_time >= make_timestamp(${mid}) AND _time < make_timestamp(${mid + 15 * 60_000_000})`;
  const src = `read_parquet('${f}')`;
  const [[kept, all]] = await rows<[bigint, bigint]>(
    c,
    `SELECT count(*) FILTER (WHERE stats_min_value::TIMESTAMP < make_timestamp(${mid + 15 * 60_000_000}) AND stats_max_value::TIMESTAMP >= make_timestamp(${mid})), count(*)
       FROM parquet_metadata('${f}') WHERE path_in_schema = '_time'`,
  );
  return {
    countMs: await timed(c, `SELECT count(*) FROM ${src} WHERE ${where}`),
    termMs: await timed(c, `SELECT count(*) FROM ${src} WHERE ${where} AND contains(lower(message), 'error')`),
    newestMs: await timed(c, `SELECT * FROM ${src} WHERE ${where} ORDER BY _time DESC LIMIT 100`),
    rowGroups: `${kept}/${all}`,
  };
}

async function runVariant(c: DuckDBConnection, v: Variant, blocks: BlockInfo[], outDir: string): Promise<Sample> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const outs = [];
  for (const [i, b] of blocks.entries()) {
    const out = join(outDir, `${i}.parquet`);
    await c.run(`COPY (${await v.select(c, b)}) TO '${out}' (${v.options})`);
    outs.push(out);
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = cpuNow() - cpu0;
  const largest = blocks.reduce((a, b, i) => (b.rows > blocks[a].rows ? i : a), 0);
  const q = await shortRange(c, blocks[largest], outs[largest]);
  return { bytes: sum(outs.map((f) => statSync(f).size)), cpuS, wallS, ...q };
}

async function main(): Promise<void> {
  const events = Number(arg('events', '1000000'));
  const shape = { days: Number(arg('days', String(DATASET_DAYS))), hosts: Number(arg('hosts', String(HOSTS))) };
  const rounds = Number(arg('rounds', '2'));
  const pick = arg('variants', 'all');
  const ds = await ensureDataset(events, undefined, shape);
  console.log(
    `data set: ${ds.path}, ${events} events, ${shape.days} days, ${shape.hosts} hosts, ${mb(ds.bytes)} MB; ${cpus().length} cores (${cpus()[0]?.model})`,
  );

  const z = zstd3(ds.path);
  console.log(
    `zstd -3: ${mb(z.bytes)} MB (${(ds.bytes / z.bytes).toFixed(2)}x smaller than raw) in ${z.secs.toFixed(1)} s`,
  );

  const dataDir = `/tmp/svc-bench/compression-${events}-${shape.days}d-${shape.hosts}h`;
  const cpu0 = cpuNow();
  const t0 = performance.now();
  await loadDataDir(ds.path, dataDir, true);
  const loadCpu = cpuNow() - cpu0;
  const files = filesUnder(join(dataDir, 'blocks'), '.parquet');
  const bytes = sum(files.map((f) => statSync(f).size));
  const ratio = ds.bytes / bytes;
  console.log(
    `engine: ${files.length} blocks, ${mb(bytes)} MB, ${ratio.toFixed(2)}x smaller than raw, ${(ratio / (ds.bytes / z.bytes)).toFixed(3)} × zstd -3's ratio; ` +
      `load ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${loadCpu.toFixed(1)} s CPU (parse, WAL, seal, merge)`,
  );
  if (pick === 'none') return;

  const db = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '1GB' });
  const c = await db.connect();
  const blocks = await Promise.all(files.map((f) => blockInfo(c, f)));
  const variants = pick === 'all' ? VARIANTS : VARIANTS.filter((_, i) => pick.split(',').includes(String(i)));
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of variants) samples.get(v.name)!.push(await runVariant(c, v, blocks, `${dataDir}-rewrite`));
  }
  rmSync(`${dataDir}-rewrite`, { recursive: true, force: true });
  console.log(
    `\n| variant | MB | vs raw | vs zstd -3 ratio | rewrite CPU s | wall s | 15 min: count ms | term ms | newest 100 ms | row groups kept |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const v of variants) {
    const s = samples.get(v.name)!;
    const r = ds.bytes / s[0].bytes;
    console.log(
      `| ${v.name} | ${mb(s[0].bytes)} | ${r.toFixed(2)}x | ${(r / (ds.bytes / z.bytes)).toFixed(3)} | ${range(s.map((x) => x.cpuS))} | ${range(s.map((x) => x.wallS))} | ` +
        `${range(s.map((x) => x.countMs))} | ${range(s.map((x) => x.termMs))} | ${range(s.map((x) => x.newestMs))} | ${s[0].rowGroups} |`,
    );
  }
}

await main();
