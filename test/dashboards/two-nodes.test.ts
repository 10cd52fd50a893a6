import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken, call } from '../helpers/auth.js';

/**
 * Two real svc processes on one shared store (SVC_STORE, docs/storage.md "Several nodes"): a
 * dashboard made on one is changed on both at once from the same version, and the second edit is
 * told (409 version_conflict), never silently lost.
 */
describe('dashboards on two nodes sharing a store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dash-nodes-'));
  const nodes: ProcessServer[] = [];

  before(async () => {
    mkdirSync(join(dir, 'store'));
    // one after the other: the first creates the control plane the second reads
    for (const id of ['a', 'b'])
      nodes.push(
        await startServerProcess({
          SVC_STORE: join(dir, 'store'),
          SVC_NODE_ID: id,
          SVC_DATA_DIR: join(dir, id),
          SVC_CONTROL_KEY_PATH: join(dir, 'control.key'),
          SVC_JWT_SECRET_PATH: join(dir, 'jwt.secret'),
          SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
          SVC_TEST_WEAK_PASSWORD_HASHES: '1',
          SVC_DUCKDB_THREADS: '1',
          SVC_INGEST_WORKERS: '0',
        }),
      );
  });
  after(async () => {
    for (const n of nodes) await n.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one of two edits made at once on two nodes from one version, and tells the other', async () => {
    const [a, b] = nodes;
    const d = (await call(a, 'POST', '/api/dashboards', {
      token: await adminToken(a),
      body: { title: 'Both nodes' },
      expect: 201,
    })) as { id: string };
    const edits = await Promise.all(
      [a, b].map(async (n, i) => {
        const res = await fetch(`${n.url}/api/dashboards/${d.id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${await adminToken(n)}`, 'content-type': 'application/json' },
          body: JSON.stringify({ version: 1, description: `from node ${i}` }),
        });
        return { status: res.status, body: (await res.json()) as { description?: string; error?: { code: string } } };
      }),
    );
    assert.deepEqual(edits.map((e) => e.status).sort(), [200, 409]);
    assert.equal(edits.find((e) => e.status === 409)!.body.error!.code, 'version_conflict');
    const kept = edits.find((e) => e.status === 200)!.body.description;
    // the kept edit is what node b changes next, and node a is told its version 2 is stale now
    const next = (await call(b, 'PATCH', `/api/dashboards/${d.id}`, {
      token: await adminToken(b),
      body: { version: 2, title: 'Both nodes, again' },
    })) as { version: number; description: string };
    assert.deepEqual([next.version, next.description], [3, kept]);
    await call(a, 'PATCH', `/api/dashboards/${d.id}`, {
      token: await adminToken(a),
      body: { version: 2, title: 'stale' },
      expect: 409,
    });
  });
});
