import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKeyRecord, login } from '../helpers/auth.js';

/** Two nodes on one shared directory (SVC_STORE), sharing the control key and the JWT secret. */
describe('a control plane shared by two nodes', () => {
  const shared = mkdtempSync(join(tmpdir(), 'svc-shared-'));
  const env = {
    SVC_STORE: join(shared, 'store'),
    SVC_CONTROL_KEY_PATH: join(shared, 'control.key'),
    SVC_JWT_SECRET_PATH: join(shared, 'jwt.secret'),
    SVC_BLOCK_SYNC_SECS: '1',
  };
  const nodes: TestServer[] = [];
  after(async () => {
    for (const n of nodes) await n.close();
    rmSync(shared, { recursive: true, force: true });
  });

  const eventually = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 50; i++) {
      if (await check()) return;
      await sleep(100);
    }
    assert.fail(`${what} did not happen within 5 s`);
  };
  const status = async (node: TestServer, secret: string) =>
    (await fetch(`${node.url}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } })).status;

  it('sees keys created, disabled and deleted on the other node, and honours its sessions', async () => {
    nodes.push(await startTestServer({ ...env, SVC_NODE_ID: 'node-a' }));
    nodes.push(await startTestServer({ ...env, SVC_NODE_ID: 'node-b' }));
    const [a, b] = nodes;

    const key = await createApiKeyRecord(a, { scopes: ['standard'] });
    await eventually('node b accepting the new key', async () => (await status(b, key.secret)) === 200);

    await call(a, 'POST', `/api/admin/api-keys/${key.id}/disable`, { token: await adminToken(a) });
    await eventually('node b refusing the disabled key', async () => (await status(b, key.secret)) === 401);

    // a session from node a works on node b (same JWT secret); logout on b ends it on a
    const session = await login(a, 'admin', 'test-admin-password');
    assert.equal(await status(b, session), 200);
    await call(b, 'POST', '/api/auth/logout', { token: session, expect: 204 });
    await eventually('node a refusing the logged-out session', async () => (await status(a, session)) === 401);

    await call(b, 'DELETE', `/api/admin/api-keys/${key.id}`, { token: await adminToken(b) });
    await eventually(
      'node a forgetting the deleted key',
      async () => !a.deps.auth.apiKeys.list().some((k) => k.id === key.id),
    );
  });
});
