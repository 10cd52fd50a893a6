import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, suiteServer, type TestServer } from '../helpers/server.js';
import { adminToken, call } from '../helpers/auth.js';

interface EnvJson {
  name: string;
  retentionDays?: number;
  createdAt: string;
}

describe('environments through /api/admin/envs', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${srv.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json().catch(() => undefined)) as {
        error: { code: string; field?: string; message: string };
      } & EnvJson,
    };
  };
  const names = async () =>
    ((await call(srv, 'GET', '/api/admin/envs', { token: admin })) as { envs: EnvJson[] }).envs.map((e) => e.name);

  it('has the default environment from the first start, and the reserved _system', async () => {
    assert.ok((await names()).includes('default'));
    assert.ok((await names()).includes('_system'));
  });

  it('creates an environment with a retention override, and the control reader sees it at once', async () => {
    const res = await send('POST', '/api/admin/envs', { name: 'prod', retentionDays: 30 });
    assert.equal(res.status, 201);
    assert.equal(res.body.retentionDays, 30);
    assert.equal(srv.deps.control.env('prod')?.retentionDays, 30);
  });

  it('updates retention days and removes the override with null', async () => {
    await send('POST', '/api/admin/envs', { name: 'staging' });
    assert.equal((await send('PATCH', '/api/admin/envs/staging', { retentionDays: 7 })).body.retentionDays, 7);
    const cleared = await send('PATCH', '/api/admin/envs/staging', { retentionDays: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.retentionDays, undefined);
  });

  it('refuses names starting with "_" as reserved', async () => {
    const res = await send('POST', '/api/admin/envs', { name: '_mine' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'reserved_name');
    assert.equal((await names()).includes('_mine'), false);
  });

  for (const [what, body, field] of [
    ['an empty name', { name: '' }, 'name'],
    ['a name with a slash', { name: 'a/b' }, 'name'],
    ['a 65-character name', { name: 'e'.repeat(65) }, 'name'],
    ['retention 0', { name: 'x1', retentionDays: 0 }, 'retentionDays'],
    ['retention as a string', { name: 'x2', retentionDays: '7' }, 'retentionDays'],
  ] as const) {
    it(`answers 400 naming "${field}" for ${what}, and stores nothing`, async () => {
      const before = await names();
      const res = await send('POST', '/api/admin/envs', body);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, field);
      assert.deepEqual(await names(), before);
    });
  }

  it('refuses a duplicate with 409', async () => {
    await send('POST', '/api/admin/envs', { name: 'dup' });
    assert.equal((await send('POST', '/api/admin/envs', { name: 'dup' })).status, 409);
  });

  it('never deletes default or _system', async () => {
    for (const name of ['default', '_system']) {
      const res = await send('DELETE', `/api/admin/envs/${name}`);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'cannot_delete');
    }
    assert.ok((await names()).includes('default'));
  });

  it('deletes an environment', async () => {
    await send('POST', '/api/admin/envs', { name: 'gone' });
    assert.equal((await send('DELETE', '/api/admin/envs/gone')).status, 204);
    assert.equal(srv.deps.control.env('gone'), undefined);
    assert.equal((await send('GET', '/api/admin/envs/gone')).status, 404);
  });
});

describe('settings through /api/admin/settings', () => {
  it('stores the retention default and says the environment variable wins', async () => {
    const srv = await startTestServer({ SVC_RETENTION_DEFAULT_DAYS: '90' });
    try {
      const admin = await adminToken(srv);
      const res = (await call(srv, 'PATCH', '/api/admin/settings', {
        token: admin,
        body: { retentionDefaultDays: 14 },
      })) as {
        settings: { retentionDefaultDays?: number };
        effective: { retentionDefaultDays: number | null; retentionDefaultSource: string };
      };
      assert.equal(res.settings.retentionDefaultDays, 14);
      assert.deepEqual(res.effective, {
        retentionDefaultDays: 90,
        retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS',
      });
      assert.equal(srv.deps.control.settings().retentionDefaultDays, 14);
      const bad = await fetch(`${srv.url}/api/admin/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ retentionDefaultDays: -1 }),
      });
      assert.equal(bad.status, 400);
      assert.equal(srv.deps.control.settings().retentionDefaultDays, 14);
      const cleared = (await call(srv, 'PATCH', '/api/admin/settings', {
        token: admin,
        body: { retentionDefaultDays: null },
      })) as { settings: object };
      assert.deepEqual(cleared.settings, {});
    } finally {
      await srv.close();
    }
  });
});
