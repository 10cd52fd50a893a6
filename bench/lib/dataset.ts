/**
 * The benchmark data set, shared by bench/ingest.ts and the query benchmark: N NDJSON events built
 * from the real lines under SVC_REAL_DATA (default ../shared/data/real beside the repo).
 *
 * - Every real log line and Zeek JSON record is used, in file order, cycling until N events.
 * - Copy 0 of a line is byte-for-byte real. In later copies every run of 5 or more digits (block
 *   ids, pids, ports, byte counts, request ids) is shifted by a per-copy amount, keeping its length,
 *   so ids stay unique per copy the way they are in real traffic: a "rare term" is then really rare
 *   and compression is not flattered by exact repeats.
 * - `_time` rises evenly over 30 days (`--days`) ending at DATASET_END (jitter ±30 s), so the data arrives in
 *   time order as live ingest does; `host` is one of 300 hosts (`--hosts`); `source` is the file, `sourcetype`
 *   the data set (hdfs, apache_access, zeek_ssh, …). Zeek records keep their own fields.
 *
 * Written once under /tmp/svc-bench/ (dataset-<N>.ndjson + .json with facts for the query bench),
 * reused when present. Run directly: `npx tsx bench/lib/dataset.ts [--events N]`.
 */
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DATASET_END = Date.UTC(2026, 10, 1); // 2026-11-01T00:00:00Z
export const DATASET_DAYS = 30;
export const HOSTS = 300;

export interface DatasetInfo {
  path: string;
  events: number;
  bytes: number;
  startUs: number;
  endUs: number;
  hosts: number;
  /** A token in very few events: an HDFS block id of copy 0 (later copies carry shifted ids). */
  rareTerm: string;
  /** A token in many events. */
  commonTerm: string;
  sources: string[];
}

interface RealLine {
  source: string;
  sourcetype: string;
  text: string;
  json: boolean;
}

export function realDataDir(): string {
  return resolve(
    process.env.SVC_REAL_DATA ?? join(fileURLToPath(new URL('../..', import.meta.url)), '..', 'shared', 'data', 'real'),
  );
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (/\.log$|\.json$|server\.log/.test(e.name) && !/\.csv$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

function sourcetypeOf(rel: string): string {
  if (rel.startsWith('zeek')) return 'zeek_' + rel.split('/').pop()!.replace('.json', '');
  if (rel.includes('apache_access')) return 'apache_access';
  if (rel.includes('kafka')) return 'kafka';
  return rel.split('/')[1]?.toLowerCase() ?? 'log';
}

/** Every real line, in file order. */
export function loadRealLines(dir = realDataDir()): RealLine[] {
  const out: RealLine[] = [];
  for (const file of listFiles(dir)) {
    const rel = relative(dir, file);
    const st = sourcetypeOf(rel);
    for (const text of readFileSync(file, 'utf8').split(/\r?\n/)) {
      if (text.trim() === '') continue;
      out.push({ source: rel, sourcetype: st, text, json: file.endsWith('.json') });
    }
  }
  return out;
}

/** Shifts every 5+ digit run by a per-copy amount, keeping its length (copy 0 unchanged). */
export function varyIds(text: string, copy: number): string {
  if (copy === 0) return text;
  return text.replace(/\d{5,}/g, (d) => {
    const mod = 10 ** Math.min(d.length, 15);
    const head = d.length > 15 ? d.slice(0, d.length - 15) : '';
    const tail = d.slice(head.length);
    return head + String((Number(tail) + copy * 7919) % mod).padStart(tail.length, '0');
  });
}

/** varyIds over a JSON record's string values only, so the record stays valid JSON. */
function varyJson(text: string, copy: number): string {
  if (copy === 0) return text;
  const o = JSON.parse(text) as Record<string, unknown>;
  for (const k in o) if (typeof o[k] === 'string') o[k] = varyIds(o[k], copy);
  return JSON.stringify(o);
}

/** How the events spread: over how many days (ending at DATASET_END) and hosts. */
export interface DatasetShape {
  days: number;
  hosts: number;
}

function eventLine(l: RealLine, copy: number, i: number, n: number, startMs: number, shape: DatasetShape): string {
  const spanMs = shape.days * 86_400_000;
  const jitter = (((i * 2654435761) >>> 0) % 60_000) - 30_000;
  const t = Math.min(DATASET_END - 1, Math.max(startMs, startMs + Math.floor((i / n) * spanMs) + jitter));
  const head = `{"_time":"${new Date(t).toISOString()}","host":"host-${String(((i * 7919) >>> 0) % shape.hosts).padStart(3, '0')}","source":${JSON.stringify(l.source)},"sourcetype":"${l.sourcetype}"`;
  if (l.json && l.text.startsWith('{')) return head + ',' + varyJson(l.text, copy).slice(1);
  return head + ',"message":' + JSON.stringify(varyIds(l.text, copy)) + '}';
}

/** The data set of `events` events; another shape than 30 days × 300 hosts gets its own file name. */
export async function ensureDataset(
  events = 5_000_000,
  outDir = '/tmp/svc-bench',
  shape: DatasetShape = { days: DATASET_DAYS, hosts: HOSTS },
): Promise<DatasetInfo> {
  mkdirSync(outDir, { recursive: true });
  const std = shape.days === DATASET_DAYS && shape.hosts === HOSTS;
  const path = join(outDir, `dataset-${events}${std ? '' : `-${shape.days}d-${shape.hosts}h`}.ndjson`);
  const infoPath = path.replace(/\.ndjson$/, '.json');
  if (existsSync(path) && existsSync(infoPath)) return JSON.parse(readFileSync(infoPath, 'utf8')) as DatasetInfo;
  const lines = loadRealLines();
  if (lines.length === 0) throw new Error(`no real data under ${realDataDir()}`);
  const startMs = DATASET_END - shape.days * 86_400_000;
  const out = createWriteStream(path + '.tmp');
  let chunk = '';
  for (let i = 0; i < events; i++) {
    const copy = Math.floor(i / lines.length);
    chunk += eventLine(lines[i % lines.length], copy, i, events, startMs, shape) + '\n';
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((r) => out.on('finish', () => r()));
  const { renameSync } = await import('node:fs');
  renameSync(path + '.tmp', path);
  const hdfs = lines.find((l) => /blk_\d{5,}/.test(l.text));
  const info: DatasetInfo = {
    path,
    events,
    bytes: statSync(path).size,
    startUs: startMs * 1000,
    endUs: DATASET_END * 1000,
    hosts: shape.hosts,
    // an HDFS block id: only copy 0 carries it, later copies shift it
    // the whole token (`_` is a token character): blk_38865049064139660
    rareTerm: hdfs ? /blk_\d{5,}/.exec(hdfs.text)![0] : 'nosuchtoken',
    commonTerm: 'error',
    sources: [...new Set(lines.map((l) => l.source))],
  };
  writeFileSync(infoPath, JSON.stringify(info, null, 2));
  return info;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, def: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : def;
  };
  const t0 = Date.now();
  const info = await ensureDataset(arg('events', 5_000_000), undefined, {
    days: arg('days', DATASET_DAYS),
    hosts: arg('hosts', HOSTS),
  });
  console.log(JSON.stringify({ ...info, sources: info.sources.length, tookMs: Date.now() - t0 }, null, 2));
}
