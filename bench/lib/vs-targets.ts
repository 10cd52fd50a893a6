import { readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { chPost, startClickHouse } from './clickhouse.js';
import { benchCredentials, post, startServer } from './server.js';

// The two systems of bench/vs-clickhouse.ts behind one shape: load batches, answer a query as a
// count or as counts per group, tell the bytes stored. Each runs in its own process, one after the
// other, so they never share the cores.

/** A query as both systems say it; `kind` says whether the answer is one count or a count per group. */
export interface VsQuery {
  name: string;
  kind: 'count' | 'groups';
  svc: string;
  ch: string;
}

/** One count, or counts per group key (host name; an hour as epoch ms). */
export type Answer = number | Map<string, number>;

/** One batch: the request body and how many events it holds. */
export interface Batch {
  body: Buffer;
  lines: number;
}

export interface Target {
  name: string;
  pid: number;
  /** Sends one batch on `agent`; resolves with the events acknowledged. */
  send(agent: http.Agent, batch: Batch): Promise<number>;
  answer(q: VsQuery): Promise<Answer>;
  storedBytes(): Promise<number>;
  stop(): Promise<void>;
}

/** Bytes of every file under `dir` (0 when it does not exist). */
export function du(dir: string): number {
  let n = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

/** A rejection handler that stops a server started for the run before passing the error on. */
function stopping(server: { stop(): Promise<void> }): (e: unknown) => Promise<never> {
  return async (e) => {
    await server.stop();
    throw e;
  };
}

function groups(pairs: [unknown, unknown][], key: (k: unknown) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const [k, v] of pairs) if (Number(v) !== 0) m.set(key(k), Number(v)); // timechart fills empty buckets with 0
  return m;
}

/**
 * svc in its own process (bench/lib/server.ts) on `dataDir`: native `POST /api/ingest` (acked once
 * fsync'd), `GET /api/search` over [fromMs, toMs).
 */
export async function svcTarget(
  dataDir: string,
  fromMs: number,
  toMs: number,
  env: Record<string, string> = {},
  cpuProfDir?: string,
  built = true,
): Promise<Target> {
  const srv = await startServer(dataDir, { env, cpuProfDir, built });
  const { admin, ingest } = await benchCredentials(srv.url).catch(stopping(srv));
  const url = new URL(srv.url);
  const search = async (q: string) => {
    const qs = new URLSearchParams({ q, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() });
    const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${admin}` } });
    const body = (await res.json()) as { meta?: { matched: number }; rows?: [unknown, unknown][] };
    if (!res.ok) throw new Error(`svc search ${q}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  return {
    name: 'svc',
    pid: srv.pid,
    send: (agent, b) =>
      post(agent, url, '/api/ingest?index=main', ingest, b.body, { 'content-type': 'application/x-ndjson' }),
    answer: async (q) => {
      const body = await search(q.svc);
      if (q.kind === 'count') return body.meta?.matched ?? NaN;
      return groups(body.rows ?? [], (k) => (q.name === 'timechart' ? String(Date.parse(String(k))) : String(k)));
    },
    // what the data dir holds for the events: sealed blocks (with their sidecars) and the WAL
    storedBytes: () => Promise.resolve(du(join(dataDir, 'blocks')) + du(join(dataDir, 'wal'))),
    stop: () => srv.stop(),
  };
}

/**
 * The table: MergeTree sorted by (host, time), `host` LowCardinality, zstd (server-wide, see
 * clickhouse.ts). DateTime is whole seconds in 18.16 (DateTime64 came with 20.1).
 */
const CREATE_TABLE = `CREATE TABLE logs (_time DateTime, host LowCardinality(String), message String)
ENGINE = MergeTree ORDER BY (host, _time)`;

const INSERT_PATH =
  '/?' +
  new URLSearchParams({
    query: 'INSERT INTO logs FORMAT JSONEachRow',
    date_time_input_format: 'best_effort', // `_time` is RFC 3339 with milliseconds and `Z`
  }).toString();

/** ClickHouse in its own process on `dir`: `INSERT … FORMAT JSONEachRow` over HTTP (acked without fsync). */
export async function clickHouseTarget(dir: string): Promise<Target & { version: string }> {
  const ch = await startClickHouse(dir);
  await ch.query(CREATE_TABLE).catch(stopping(ch));
  const version = (await ch.query('SELECT version()').catch(stopping(ch))).trim();
  const url = new URL(ch.url);
  return {
    name: 'ClickHouse',
    pid: ch.pid,
    version,
    send: async (agent, b) => {
      await chPost(agent, url, INSERT_PATH, b.body);
      return b.lines;
    },
    answer: async (q) => {
      const text = (await ch.query(`${q.ch} FORMAT TabSeparated`)).trim();
      if (q.kind === 'count') return Number(text);
      return groups(
        text.split('\n').map((l) => l.split('\t') as [string, string]),
        (k) => String(k),
      );
    },
    storedBytes: async () =>
      Number(
        await ch.query(
          "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'default' AND table = 'logs' AND active",
        ),
      ),
    stop: () => ch.stop(),
  };
}
