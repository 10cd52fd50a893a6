import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REAL_DATA, REAL_LOGS, accessLine, realLines } from '../helpers/real-logs.js';
import { api, eventually, ingest, Node } from '../cluster/nodes.js';

/** The real Apache access log is there (SVC_REAL_DATA); the tests print that they were skipped otherwise. */
export const APACHE_PRESENT = existsSync(join(REAL_DATA, REAL_LOGS.apache));

/** One line of the real log as the test reads it: its number, time, status, the line itself. */
export interface Line {
  n: number;
  ms: number;
  status: string;
  clientip: string;
  line: string;
}

/** The log's lines that the test's own regex reads (real-logs.ts accessLine), numbered from 1. */
export function apacheLines(): Line[] {
  return realLines(REAL_LOGS.apache).flatMap((line, i) => {
    const a = accessLine(line);
    return a ? [{ n: i + 1, ms: a.ms, status: a.status, clientip: a.clientip, line }] : [];
  });
}

/** The range and filter the tests delete: 404s of 18 and 19 May 2015 (UTC). */
export const RANGE = { from: '2015-05-18T00:00:00Z', to: '2015-05-20T00:00:00Z' };
export const QUERY = 'status=404';

/** Whether the test's own reading says a line matches the delete. */
export function doomed(l: Line): boolean {
  return l.status === '404' && l.ms >= Date.parse(RANGE.from) && l.ms < Date.parse(RANGE.to);
}

/** Sends lines as native JSON events, spread over `indexes` indexes (many small blocks), in batches. */
export async function send(n: Node, token: string, lines: Line[], indexes: number, batch = 500): Promise<void> {
  for (let i = 0; i < lines.length; i += batch) {
    const byIndex = new Map<string, object[]>();
    for (const l of lines.slice(i, i + batch)) {
      const index = `web${l.n % indexes}`;
      const evs = byIndex.get(index) ?? [];
      evs.push({
        _time: new Date(l.ms).toISOString(),
        message: l.line,
        status: l.status,
        clientip: l.clientip,
        n: l.n,
      });
      byIndex.set(index, evs);
    }
    for (const [index, evs] of byIndex) assert.ok(await ingest(n, token, index, evs), `ingest into ${index}`);
  }
}

/** Events of env `default` in sealed blocks of a data dir (their sidecars' counts). */
export function sealedEvents(dataDir: string): number {
  const root = join(dataDir, 'blocks');
  if (!existsSync(root)) return 0;
  let total = 0;
  for (const f of readdirSync(root, { recursive: true }).map(String))
    if (f.endsWith('.json')) {
      // a merge may take a block away between the listing and the read
      const text = (() => {
        try {
          return readFileSync(join(root, f), 'utf8');
        } catch {
          return undefined;
        }
      })();
      const meta = text === undefined ? undefined : (JSON.parse(text) as { count: number; env: string });
      if (meta?.env === 'default') total += meta.count;
    }
  return total;
}

/** `count`, `dc(n)` and `sum(n)` of every event of env `default` in 2015 on a node, and the 404s in the range. */
export async function tally(n: Node): Promise<{ count: number; distinct: number; sum: number; doomed: number }> {
  const one = async (q: string, from: string, to: string) => {
    const qs = new URLSearchParams({ q, env: 'default', from, to, limit: '10' });
    const r = await api(n, 'GET', `/api/search?${qs}`);
    assert.equal(r.status, 200, `search ${q} on ${n.id}: ${JSON.stringify(r.body)}`);
    const { columns, rows } = r.body as { columns: string[]; rows: unknown[][] };
    return Object.fromEntries(columns.map((c, i) => [c, Number(rows[0]?.[i] ?? 0)]));
  };
  const all = await one(
    '* | stats count as c, dc(n) as d, sum(n) as s',
    '2015-01-01T00:00:00Z',
    '2016-01-01T00:00:00Z',
  );
  const hit = await one(`${QUERY} | stats count as c`, RANGE.from, RANGE.to);
  return { count: all.c, distinct: all.d, sum: all.s, doomed: hit.c };
}

/** What tally must answer when the matching lines are gone (or, `deleted` false, before). */
export function expected(
  lines: Line[],
  deleted: boolean,
): { count: number; distinct: number; sum: number; doomed: number } {
  const kept = deleted ? lines.filter((l) => !doomed(l)) : lines;
  const sum = kept.reduce((s, l) => s + l.n, 0);
  return { count: kept.length, distinct: kept.length, sum, doomed: deleted ? 0 : lines.filter(doomed).length };
}

/** A delete job as GET /api/admin/delete/{id} answers it. */
export interface JobView {
  id: string;
  status: string;
  progress: { blocksDone: number; blocksTotal: number };
  deletedEvents: number;
  nodes: { node: string; status: string; blocksDone: number; blocksTotal: number; deletedEvents: number }[];
  error?: string;
}

export async function job(n: Node, id: string): Promise<JobView> {
  const r = await api(n, 'GET', `/api/admin/delete/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { job: JobView }).job;
}

/** Waits for a job to end on a node; answers its view. */
export function ended(n: Node, id: string, secs = 120): Promise<JobView> {
  return eventually(
    `delete job ${id} ends on ${n.id}`,
    secs,
    () => job(n, id),
    (j) => j.status !== 'running' && j.status !== 'queued',
  );
}

/** Waits until the data dir's blocks hold `count` events (the seals of what was sent are done). */
export async function sealed(dataDir: string, count: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; sealedEvents(dataDir) !== count; await sleep(100))
    if (Date.now() > deadline) assert.fail(`blocks hold ${sealedEvents(dataDir)} events, want ${count}`);
}

/** One svc process on `<dir>/a`, alone (no store); `ageMs`: the WAL segment age at which it seals. */
export function node(dir: string, ageMs: number): Node {
  return new Node('a', {
    SVC_DATA_DIR: join(dir, 'a'),
    SVC_ADMIN_PASSWORD: 'test-admin-password',
    SVC_TEST_SEGMENT_AGE_MS: String(ageMs),
    SVC_DUCKDB_MEMORY_LIMIT: '256MB',
    SVC_DUCKDB_THREADS: '1',
    SVC_INGEST_WORKERS: '0',
  });
}
