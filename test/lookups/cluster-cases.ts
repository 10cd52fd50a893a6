import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { login } from '../helpers/auth.js';
import { CLUSTER_ADMIN_PASSWORD, TestCluster, type StoreBackend } from '../helpers/cluster.js';
import type { ProcessServer } from '../helpers/process.js';

/** How long a change on one node may take to reach a search on another: a control-plane poll (1 s), a read and a fetch. */
const SEEN_WITHIN_MS = 8000;

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + SEEN_WITHIN_MS;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end)
      assert.fail(`${what} did not happen within ${SEEN_WITHIN_MS} ms (last: ${JSON.stringify(v)})`);
    await sleep(100);
  }
}

/**
 * Lookup tables on several nodes (docs/lookups.md): a table uploaded on one node is used by searches
 * on another, a replace or delete on either reaches both, and the shared store keeps only the
 * current version's objects. Two real svc processes on any StoreBackend (a directory, an S3 bucket).
 */
export function lookupClusterCases(backend: StoreBackend): void {
  describe(`lookup tables on two nodes sharing ${backend.name}`, () => {
    let cluster: TestCluster;
    let a: ProcessServer;
    let b: ProcessServer;
    const tokens = new Map<ProcessServer, string>();
    const call = async (n: ProcessServer, method: string, path: string, body?: string) => {
      const res = await fetch(`${n.url}${path}`, {
        method,
        body,
        headers: { authorization: `Bearer ${tokens.get(n)}`, ...(body ? { 'content-type': 'text/csv' } : {}) },
      });
      const text = await res.text();
      return {
        status: res.status,
        text,
        json: res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined,
      };
    };
    /** `owner` of each host, as a search on `n` gives it through the table. */
    const owners = async (n: ProcessServer) => {
      const q = encodeURIComponent('* | lookup hosts host output owner | stats count by host, owner | sort host');
      const r = await call(n, 'GET', `/api/search?q=${q}&index=web&limit=100`);
      return r.status === 200
        ? (r.json.rows as [string, string, number][]).map(([h, o]) => `${h}=${o}`).join(' ')
        : `${r.status} ${r.json?.error?.message}`;
    };
    const storedKeys = async () =>
      [...(await cluster.store.snapshot()).keys()].filter((k) => k.startsWith('lookups/')).sort();

    before(async () => {
      cluster = await TestCluster.create(backend);
      a = await cluster.start();
      b = await cluster.start();
      for (const n of [a, b]) {
        tokens.set(n, await login(n, 'admin', CLUSTER_ADMIN_PASSWORD));
        // each node's own events: searchable on it at once, whatever the sync
        const made = await fetch(`${n.url}/api/admin/ingest-tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.get(n)}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `lookup-test-${tokens.size}`, env: 'default' }),
        });
        const ingest = ((await made.json()) as { secret: string }).secret;
        const body = ['web-1', 'web-2', 'db-1']
          .map((host) => JSON.stringify({ host, message: `from ${host}` }))
          .join('\n');
        const res = await fetch(`${n.url}/api/ingest?index=web`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/x-ndjson' },
          body,
        });
        assert.equal(res.status, 200);
      }
    });
    after(async () => cluster?.dispose());

    it('lets a search on one node use a table uploaded on the other, and gives its CSV there', async () => {
      const csv = 'host,owner\nweb-1,alice\nweb-2,bob\n';
      assert.equal((await call(a, 'PUT', '/api/admin/lookups/hosts', csv)).status, 201);
      assert.equal(await owners(a), 'web-1=alice web-2=bob');
      await until(
        'node b using the table',
        () => owners(b),
        (v) => v === 'web-1=alice web-2=bob',
      );
      assert.equal((await call(b, 'GET', '/api/admin/lookups/hosts')).text, csv, 'the CSV from the store');
      assert.equal((await call(b, 'GET', '/api/admin/lookups/hosts?preview=1')).json.rows.length, 2);
      assert.equal((await storedKeys()).length, 2, 'one version: its CSV and Parquet');
    });

    it('shows a replace made on the second node to searches on the first, and drops the old version from the store', async () => {
      const before = await storedKeys();
      assert.equal(
        (await call(b, 'PUT', '/api/admin/lookups/hosts', 'host,owner\nweb-1,carol\ndb-1,dan\n')).status,
        200,
      );
      assert.equal(await owners(b), 'db-1=dan web-1=carol');
      await until(
        'node a using the new version',
        () => owners(a),
        (v) => v === 'db-1=dan web-1=carol',
      );
      const after = await storedKeys();
      assert.equal(after.length, 2);
      assert.ok(
        after.every((k) => !before.includes(k)),
        `old objects gone: ${after.join(', ')}`,
      );
      const listed = await call(a, 'GET', '/api/admin/lookups');
      assert.deepEqual(
        listed.json.lookups.map((l: { name: string; rows: number }) => [l.name, l.rows]),
        [['hosts', 2]],
      );
    });

    it('makes a table deleted on one node unknown to searches on both, and empties the store of it', async () => {
      assert.equal((await call(a, 'DELETE', '/api/admin/lookups/hosts')).status, 204);
      await until(
        'node b refusing the deleted table',
        () => owners(b),
        (v) => v.startsWith('400 lookup: unknown lookup table "hosts"'),
      );
      assert.match(await owners(a), /^400 lookup: unknown lookup table "hosts"/);
      assert.deepEqual(await storedKeys(), []);
    });
  });
}
