import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call } from '../helpers/auth.js';

/** Two nodes on one shared directory (SVC_STORE): saved searches live in the control plane they share. */
describe('saved searches on two nodes', () => {
  const shared = mkdtempSync(join(tmpdir(), 'svc-shared-'));
  const env = {
    SVC_STORE: join(shared, 'store'),
    SVC_CONTROL_KEY_PATH: join(shared, 'control.key'),
    SVC_JWT_SECRET_PATH: join(shared, 'jwt.secret'),
  };
  const nodes: TestServer[] = [];
  after(async () => {
    for (const n of nodes) await n.close();
    rmSync(shared, { recursive: true, force: true });
  });

  it('shows a search saved on one node on the other, and refuses the second of two edits made from one version', async () => {
    nodes.push(await startTestServer({ ...env, SVC_NODE_ID: 'node-a' }));
    nodes.push(await startTestServer({ ...env, SVC_NODE_ID: 'node-b' }));
    const [a, b] = nodes;
    const token = await adminToken(a);
    const s = (await call(a, 'POST', '/api/saved-searches', {
      token,
      body: { name: 'seen everywhere', query: 'error', shared: true },
      expect: 201,
    })) as { id: string };
    let seen = 0;
    for (let i = 0; i < 50 && seen !== 200; i++) {
      if (i > 0) await sleep(100);
      seen = (await fetch(`${b.url}/api/saved-searches/${s.id}`, { headers: { authorization: `Bearer ${token}` } }))
        .status;
    }
    assert.equal(seen, 200, 'node b did not see the saved search within 5 s');

    // both editors read version 1; a's edit lands first, b's is refused even before b polled again
    await call(a, 'PATCH', `/api/saved-searches/${s.id}`, { token, body: { version: 1, description: 'from a' } });
    const res = await fetch(`${b.url}/api/saved-searches/${s.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ version: 1, description: 'from b' }),
    });
    const body = (await res.json()) as { error: { code: string; currentVersion: number } };
    assert.equal(res.status, 409, JSON.stringify(body));
    assert.equal(body.error.code, 'version_conflict');
    assert.equal(body.error.currentVersion, 2);
    const got = (await call(b, 'GET', `/api/saved-searches/${s.id}`, { token })) as { description: string };
    assert.equal(got.description, 'from a', "a's edit is kept");
  });
});
