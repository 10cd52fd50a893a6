import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createEnv, createIngestToken } from '../helpers/auth.js';

/**
 * Ingests every real log file under SVC_REAL_DATA (default ../shared/data/real beside the repo)
 * through POST /api/ingest with an ingest token, one index per file, then checks through
 * /api/search that each index holds exactly the file's lines and that their times fall in the
 * range the data's READMEs document. The files are read where they are, never copied.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const ENV = 'realdata';
const NOW = Date.now();
const DAY = 86_400_000;

/** Documented UTC ranges [from, to); `yearless` ranges are month/day windows resolved like svc does. */
interface Range {
  from: string;
  to: string;
  yearless?: boolean;
}

function rangeOf(rel: string): Range | undefined {
  const kafkaHour = /kafka\d\/server\.log\.(\d{4}-\d{2}-\d{2})-(\d{2})$/.exec(rel);
  if (kafkaHour) {
    const from = `${kafkaHour[1]}T${kafkaHour[2]}:00:00Z`;
    return { from, to: new Date(Date.parse(from) + 3_600_000).toISOString() };
  }
  if (/kafka\d\/server\.log$/.test(rel)) return { from: '2016-12-20T00:00:00Z', to: '2016-12-20T01:00:00Z' };
  if (rel.startsWith('zeek-wrccdc-json/')) return { from: '2018-03-24T00:00:00Z', to: '2018-03-25T00:00:00Z' };
  if (rel.startsWith('elastic-examples-apache/')) return { from: '2015-05-17T00:00:00Z', to: '2015-05-21T00:00:00Z' };
  const system = /^loghub\/(\w+)\//.exec(rel)?.[1];
  return system ? LOGHUB[system] : undefined;
}

const LOGHUB: Record<string, Range> = {
  Android: { from: '03-17', to: '03-18', yearless: true },
  Apache: { from: '2005-12-04', to: '2005-12-06' },
  BGL: { from: '2005-06-03', to: '2006-01-04' },
  HDFS: { from: '2008-11-09', to: '2008-11-12' },
  HPC: { from: '2003-01-01', to: '2007-01-01' },
  Hadoop: { from: '2015-10-18', to: '2015-10-19' },
  HealthApp: { from: '2017-12-23', to: '2017-12-25' },
  Linux: { from: '06-01', to: '08-01', yearless: true },
  Mac: { from: '07-01', to: '07-09', yearless: true },
  OpenSSH: { from: '12-10', to: '12-11', yearless: true },
  OpenStack: { from: '2017-05-16', to: '2017-05-17' },
  Proxifier: { from: '07-26', to: '10-31', yearless: true },
  Spark: { from: '2017-06-09', to: '2017-06-10' },
  Thunderbird: { from: '2005-11-09', to: '2005-11-10' },
  Windows: { from: '2016-09-28', to: '2016-09-30' },
  Zookeeper: { from: '2015-07-29', to: '2015-08-26' },
};

/** Concrete [from, to) windows of a range; a yearless one gives this year's and last year's. */
function windows(r: Range): [string, string][] {
  if (!r.yearless) return [[r.from, r.to]];
  const y = new Date(NOW).getUTCFullYear();
  return [y, y - 1].map((year) => [`${year}-${r.from}T00:00:00Z`, `${year}-${r.to}T00:00:00Z`]);
}

/** `2005-12-04` → `2005-12-04T00:00:00Z`; full timestamps as they are. */
function iso(d: string): string {
  return d.length === 10 ? `${d}T00:00:00Z` : d;
}

interface LogFile {
  rel: string;
  index: string;
  lines: number;
  range: Range | undefined;
}

function addTo(m: Map<string, number>, k: string, n: number): void {
  m.set(k, (m.get(k) ?? 0) + n);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** Every data file (not READMEs, licences, or Loghub's ground-truth CSVs). */
function logFiles(): LogFile[] {
  return walk(DATA)
    .map((p) => relative(DATA, p))
    .filter((rel) => !/(^|\/)(README\.md|LICENSE|CITATION)$|\.csv$/.test(rel))
    .sort()
    .map((rel) => ({ rel, index: indexName(rel), lines: countLines(join(DATA, rel)), range: rangeOf(rel) }));
}

function indexName(rel: string): string {
  return rel
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

/** Lines as a reader sees them: a last line without LF counts, blank lines do not. */
function countLines(path: string): number {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.replace(/\r$/, '').trim().length > 0).length;
}

const present = existsSync(DATA);
if (!present) console.log(`# skipping real-data tests: no data at ${DATA} (set SVC_REAL_DATA)`);

describe('ingest of every real log file', { skip: present ? false : `no real data at ${DATA}` }, () => {
  let srv: TestServer;
  let files: LogFile[];
  let searchToken: string;
  const answers = new Map<string, { ingested: number; errors: number }>();

  async function search(
    q: string,
    extra: Record<string, string> = {},
  ): Promise<{ columns?: string[]; rows?: unknown[][]; meta: { matched: number } }> {
    const qs = new URLSearchParams({ q, env: ENV, ...extra });
    const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${searchToken}` } });
    const text = await res.text();
    assert.equal(res.status, 200, `search ${q} ${JSON.stringify(extra)}: ${text}`);
    return JSON.parse(text);
  }

  async function count(index: string, from: string, to: string): Promise<number> {
    const r = await search('* | stats count', { index, from, to });
    return r.rows && r.rows.length > 0 ? Number(r.rows[0][r.columns!.indexOf('count')]) : 0;
  }

  before(async () => {
    srv = await startTestServer();
    files = logFiles();
    await createEnv(srv, ENV);
    const token = await createIngestToken(srv, { env: ENV });
    searchToken = await adminToken(srv);
    for (const f of files) {
      const raw = readFileSync(join(DATA, f.rel));
      const json = f.rel.endsWith('.json');
      // the large Apache file goes gzipped, as shippers send it
      const gzip = raw.length > 1_000_000;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'content-type': json ? 'application/x-ndjson' : 'text/plain',
      };
      if (gzip) headers['content-encoding'] = 'gzip';
      const qs = new URLSearchParams({ index: f.index, source: f.rel });
      const res = await fetch(`${srv.url}/api/ingest?${qs}`, {
        method: 'POST',
        headers,
        body: gzip ? gzipSync(raw) : raw,
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${f.rel}: ${text}`);
      answers.set(f.rel, JSON.parse(text));
    }
  });
  after(() => srv?.close());

  it('finds data files of every documented source', () => {
    assert.ok(files.length >= 48, `only ${files.length} files`);
    for (const f of files) assert.ok(f.range, `no documented time range for ${f.rel}`);
  });

  it('answers ingested = the line count and no errors for every file', () => {
    for (const f of files)
      assert.deepEqual(answers.get(f.rel), { ingested: f.lines, errors: 0, firstErrors: [] }, f.rel);
  });

  it('stores as many events per file as the file has lines', () => {
    const parts = new Map(srv.deps.store.partitions([ENV]).map((p) => [p.index, p.events]));
    for (const f of files) assert.equal(parts.get(f.index), f.lines, f.rel);
  });

  it('counts the events of each file with stats count by index', async () => {
    const r = await search('* | stats count by index', { limit: '1000' });
    const ci = r.columns!.indexOf('index');
    const cc = r.columns!.indexOf('count');
    const got = new Map(r.rows!.map((row) => [String(row[ci]), Number(row[cc])]));
    for (const f of files) assert.equal(got.get(f.index), f.lines, f.rel);
  });

  it('counts every file by its source field too', async () => {
    const r = await search('* | stats count by source', { limit: '1000' });
    const ci = r.columns!.indexOf('source');
    const cc = r.columns!.indexOf('count');
    const got = new Map(r.rows!.map((row) => [String(row[ci]), Number(row[cc])]));
    for (const f of files) assert.equal(got.get(f.rel), f.lines, f.rel);
  });

  it("places every event inside its file's documented time range", async () => {
    for (const f of files) {
      let inRange = 0;
      for (const [from, to] of windows(f.range!)) inRange += await count(f.index, iso(from), iso(to));
      assert.equal(inRange, f.lines, `${f.rel}: ${inRange} of ${f.lines} events in ${JSON.stringify(f.range)}`);
    }
  });

  it('counts zeek events by _path as the files say', async () => {
    const want = new Map<string, number>();
    for (const f of files.filter((x) => x.rel.startsWith('zeek-wrccdc-json/'))) {
      for (const l of readFileSync(join(DATA, f.rel), 'utf8').split('\n'))
        if (l) addTo(want, String(JSON.parse(l)._path), 1);
    }
    const r = await search('* | stats count by _path', { limit: '1000' });
    const got = new Map(
      r.rows!.map((row) => [String(row[r.columns!.indexOf('_path')]), Number(row[r.columns!.indexOf('count')])]),
    );
    for (const [path, n] of want) assert.equal(got.get(path), n, `_path=${path}`);
  });

  it('filters zeek smtp events on a numeric field as the file says', async () => {
    const rel = 'zeek-wrccdc-json/smtp.json';
    const lines = readFileSync(join(DATA, rel), 'utf8').split('\n').filter(Boolean);
    const want = lines.filter((l) => JSON.parse(l)['id.resp_p'] === 25).length;
    const r = await search('id.resp_p=25 | stats count', { index: indexName(rel) });
    assert.equal(Number(r.rows![0][r.columns!.indexOf('count')]), want);
  });

  it('counts Apache requests of one day by their own timestamps', async () => {
    const rel = 'elastic-examples-apache/apache_access_combined.log';
    const want = readFileSync(join(DATA, rel), 'utf8')
      .split('\n')
      .filter((l) => l.includes('[18/May/2015:')).length;
    assert.ok(want > 0);
    assert.equal(await count(indexName(rel), '2015-05-18T00:00:00Z', '2015-05-19T00:00:00Z'), want);
  });

  it('keeps the stored time range of each file inside its documented range', () => {
    const parts = new Map(srv.deps.store.partitions([ENV]).map((p) => [p.index, p]));
    const inside = (us: number, r: Range) =>
      windows(r).some(([from, to]) => us >= Date.parse(iso(from)) * 1000 && us < Date.parse(iso(to)) * 1000);
    for (const f of files) {
      const p = parts.get(f.index)!;
      assert.ok(
        inside(p.minTimeUs, f.range!) && inside(p.maxTimeUs, f.range!),
        `${f.rel}: ${new Date(p.minTimeUs / 1000).toISOString()} .. ${new Date(p.maxTimeUs / 1000).toISOString()} not in ${JSON.stringify(f.range)}`,
      );
    }
  });

  it('dates year-less lines no later than a day from now', () => {
    for (const p of srv.deps.store.partitions([ENV]))
      assert.ok(p.maxTimeUs <= (NOW + DAY) * 1000, `${p.index} has a future event`);
  });
});
