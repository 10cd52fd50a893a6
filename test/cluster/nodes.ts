import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStore } from '../../src/shared-store/object-store.js';
import type { JsonValue } from '../../src/query/results.js';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken } from '../helpers/auth.js';

/**
 * The store several svc processes share in a cluster test: a directory today, an S3 bucket later.
 * The cases (cases.ts) know it only through this.
 */
export interface StoreFixture {
  /** SVC_STORE and whatever else the store needs (SVC_S3_ENDPOINT, …). */
  env: Record<string, string>;
  /** The store itself, to look at manifests and objects as the nodes wrote them. */
  store: ObjectStore;
  /** Makes the store unreachable for every node at once; answers how to bring it back. */
  outage(): Promise<() => Promise<void>>;
  /** At least how long an outage lasts (the S3 one: 30 s); the nodes notice it after their retries. */
  outageSecs?: number;
  close(): Promise<void>;
}

/** Seal and sync settings that make a cluster test take seconds, not minutes. */
const FAST = {
  SVC_BLOCK_SYNC_SECS: '1',
  SVC_TEST_SEGMENT_AGE_MS: '300',
  SVC_DUCKDB_MEMORY_LIMIT: '256MB',
  SVC_DUCKDB_THREADS: '1',
  SVC_INGEST_WORKERS: '0',
};

/** One svc process of the cluster: its id, data dir and settings, so it can be killed and started again. */
export class Node {
  srv: ProcessServer | undefined;

  constructor(
    readonly id: string,
    readonly env: Record<string, string>,
  ) {}

  get url(): string {
    if (!this.srv) throw new Error(`node ${this.id} is not running`);
    return this.srv.url;
  }

  async start(): Promise<this> {
    this.srv = await startServerProcess(this.env);
    return this;
  }

  async stop(): Promise<void> {
    await this.srv?.stop();
    this.srv = undefined;
  }

  /** SIGKILL, no clean-up of any kind. */
  async kill(): Promise<void> {
    this.srv?.child.kill('SIGKILL');
    await this.srv?.stop();
    this.srv = undefined;
  }

  token(): Promise<string> {
    return adminToken(this.srv!);
  }
}

/** Three nodes' settings on one store: own data dirs, shared control key and JWT secret. */
export function clusterNodes(dir: string, store: StoreFixture, ids = ['a', 'b', 'c']): Node[] {
  mkdirSync(dir, { recursive: true });
  return ids.map(
    (id) =>
      new Node(id, {
        ...FAST,
        ...store.env,
        SVC_NODE_ID: id,
        SVC_DATA_DIR: join(dir, id),
        SVC_CONTROL_KEY_PATH: join(dir, 'control.key'),
        SVC_JWT_SECRET_PATH: join(dir, 'jwt.secret'),
        SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      }),
  );
}

export async function stopAll(nodes: Node[], dir: string): Promise<void> {
  for (const n of nodes) await n.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** Calls a node with its admin session; answers status and body (parsed JSON, read field by field). */
export async function api(n: Node, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${await n.token()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${n.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Rows of a stats search, as objects by column name. */
export async function stats(n: Node, q: string, env: string, index: string): Promise<Record<string, unknown>[]> {
  const qs = new URLSearchParams({ q, env, index, limit: '10000' });
  const r = await api(n, 'GET', `/api/search?${qs}`);
  assert.equal(r.status, 200, `search ${q} on ${n.id}: ${JSON.stringify(r.body)}`);
  const { columns, rows } = r.body as { columns: string[]; rows: unknown[][] };
  return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}

/** The events a search finds (at most 10,000). */
export async function events(
  n: Node,
  q: string,
  env: string,
  index: string,
): Promise<{ message: string; fields: Record<string, JsonValue> }[]> {
  const qs = new URLSearchParams({ q, env, index, limit: '10000' });
  const r = await api(n, 'GET', `/api/search?${qs}`);
  assert.equal(r.status, 200, `search ${q} on ${n.id}: ${JSON.stringify(r.body)}`);
  return r.body.events;
}

/** `count` and `dc(seq)` of an index: equal when no event is there twice. */
export async function countAndDistinct(
  n: Node,
  env: string,
  index: string,
): Promise<{ count: number; distinct: number }> {
  const [row] = await stats(n, '* | stats count, dc(seq)', env, index);
  return { count: Number(row?.count ?? 0), distinct: Number(row?.['dc(seq)'] ?? 0) };
}

/** Posts NDJSON events with an ingest token; answers whether they were acknowledged. */
export async function ingest(n: Node, token: string, index: string, events: object[]): Promise<boolean> {
  const body = events.map((e) => JSON.stringify(e)).join('\n');
  const res = await fetch(`${n.url}/api/ingest?index=${index}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body,
  });
  const answer = (await res.json().catch(() => undefined)) as { ingested?: number } | undefined;
  return res.status === 200 && answer?.ingested === events.length;
}

/** Polls `check` until it answers true; fails naming `what` and the last value after `secs`. */
export async function eventually<T>(
  what: string,
  secs: number,
  probe: () => Promise<T>,
  ok: (v: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + secs * 1000;
  let last: T | undefined;
  for (;;) {
    last = await probe().catch((e: Error) => e as T);
    if (!(last instanceof Error) && ok(last)) return last;
    if (Date.now() > deadline)
      assert.fail(
        `${what} did not happen within ${secs} s (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      );
    await sleep(150);
  }
}
