import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, suiteServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKeyRecord } from '../helpers/auth.js';

interface KeyJson {
  id: string;
  name: string;
  purpose: string;
  scopes: string[];
  allow: { envs: string[]; indexes: string[]; tools: string[] };
  expiresAt: string | null;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  state: string;
  lastFour: string;
  secret?: string;
}

async function raw(
  srv: TestServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: string,
  contentType = 'application/json',
) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${srv.url}${path}`, { method, headers, body });
  return {
    status: res.status,
    body: (await res.json().catch(() => undefined)) as { error: { code: string; message: string; field?: string } },
  };
}

describe('API keys through /api/admin/api-keys', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  const list = async () =>
    ((await call(srv, 'GET', '/api/admin/api-keys', { token: admin })) as { apiKeys: KeyJson[] }).apiKeys;

  it('creates a key and answers its svk_ secret once, with the key JSON', async () => {
    const created = (await call(srv, 'POST', '/api/admin/api-keys', {
      token: admin,
      body: { name: 'ci-reader', purpose: 'CI dashboards', scopes: ['standard'], expiresInDays: 30 },
      expect: 201,
    })) as KeyJson;
    assert.match(created.secret!, /^svk_[0-9A-Za-z]{43}$/);
    assert.equal(created.name, 'ci-reader');
    assert.equal(created.purpose, 'CI dashboards');
    assert.deepEqual(created.scopes, ['standard']);
    assert.equal(created.state, 'enabled');
    assert.equal(created.createdBy, 'admin');
    assert.equal(created.lastFour, created.secret!.slice(-4));
    assert.equal(created.lastUsedAt, null);
    const days = (Date.parse(created.expiresAt!) - Date.parse(created.createdAt)) / 86_400_000;
    assert.equal(days, 30);
  });

  it('lists keys with scopes, last four, last used and expiry, never the secret', async () => {
    const k = await createApiKeyRecord(srv, { scopes: ['mcp'], name: 'listed' });
    const listed = (await list()).find((x) => x.id === k.id)!;
    assert.equal(listed.lastFour, k.secret.slice(-4));
    assert.equal(listed.secret, undefined);
    assert.equal(JSON.stringify(await list()).includes(k.secret), false);
    assert.deepEqual(listed.scopes, ['mcp']);
    assert.equal(listed.expiresAt, null);
    const one = (await call(srv, 'GET', `/api/admin/api-keys/${k.id}`, { token: admin })) as KeyJson;
    assert.equal(one.secret, undefined);
    assert.equal(one.name, 'listed');
  });

  it('records the last use of a key', async () => {
    const k = await createApiKeyRecord(srv, { scopes: ['standard'] });
    await call(srv, 'GET', '/api/auth/me', { token: k.secret });
    const listed = (await list()).find((x) => x.id === k.id)!;
    assert.ok(listed.lastUsedAt && Date.parse(listed.lastUsedAt) >= Date.parse(listed.createdAt));
  });

  it('batches last-used times: no control-plane write per request, one write at the flush', async () => {
    const k = await createApiKeyRecord(srv, { scopes: ['standard'] });
    const version = srv.deps.control.version;
    for (let i = 0; i < 20; i++) await call(srv, 'GET', '/api/auth/me', { token: k.secret });
    // at most the periodic flush (every 10 s) may have run meanwhile
    assert.ok(srv.deps.control.version - version <= 1, `${srv.deps.control.version - version} writes for 20 requests`);
    await srv.deps.auth.usage.flush();
    const stored = srv.deps.control.doc.apiKeys.find((x) => x.id === k.id)!;
    assert.ok(stored.lastUsedAt);
  });

  it('stores Admin API as implying Standard API, and accepts the spec scope labels', async () => {
    const k = (await call(srv, 'POST', '/api/admin/api-keys', {
      token: admin,
      body: { name: 'labels', scopes: ['Admin API', 'MCP server'] },
      expect: 201,
    })) as KeyJson;
    assert.deepEqual(k.scopes, ['standard', 'admin', 'mcp']);
  });

  it('disables a key (401 until enabled again), then enables it', async () => {
    const k = await createApiKeyRecord(srv, { scopes: ['standard'] });
    const disabled = (await call(srv, 'POST', `/api/admin/api-keys/${k.id}/disable`, { token: admin })) as KeyJson;
    assert.equal(disabled.state, 'disabled');
    const res = await raw(srv, 'GET', '/api/auth/me', k.secret);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'disabled_credentials');
    const enabled = (await call(srv, 'POST', `/api/admin/api-keys/${k.id}/enable`, { token: admin })) as KeyJson;
    assert.equal(enabled.state, 'enabled');
    await call(srv, 'GET', '/api/auth/me', { token: k.secret, expect: 200 });
  });

  it('deletes a key with immediate revocation', async () => {
    const k = await createApiKeyRecord(srv, { scopes: ['admin'] });
    await call(srv, 'GET', '/api/admin/api-keys', { token: k.secret, expect: 200 });
    await call(srv, 'DELETE', `/api/admin/api-keys/${k.id}`, { token: admin, expect: 204 });
    const res = await raw(srv, 'GET', '/api/admin/api-keys', k.secret);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'invalid_credentials');
    assert.equal(
      (await list()).some((x) => x.id === k.id),
      false,
    );
    await call(srv, 'GET', `/api/admin/api-keys/${k.id}`, { token: admin, expect: 404 });
  });

  it('refuses a second key with the same name with 409', async () => {
    await createApiKeyRecord(srv, { scopes: ['standard'], name: 'twin' });
    const res = await raw(
      srv,
      'POST',
      '/api/admin/api-keys',
      admin,
      JSON.stringify({ name: 'twin', scopes: ['standard'] }),
    );
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'already_exists');
  });

  const badInputs: [string, string, string][] = [
    ['an unknown scope', JSON.stringify({ name: 'a', scopes: ['root'] }), 'scopes.0'],
    ['no scope at all', JSON.stringify({ name: 'a', scopes: [] }), 'scopes'],
    ['missing scopes', JSON.stringify({ name: 'a' }), 'scopes'],
    ['an empty name', JSON.stringify({ name: '', scopes: ['standard'] }), 'name'],
    ['a 5,000-character name', JSON.stringify({ name: 'n'.repeat(5000), scopes: ['standard'] }), 'name'],
    ['a missing name', JSON.stringify({ scopes: ['standard'] }), 'name'],
    ['a number as name', JSON.stringify({ name: 42, scopes: ['standard'] }), 'name'],
    ['expiry 0', JSON.stringify({ name: 'a', scopes: ['standard'], expiresInDays: 0 }), 'expiresInDays'],
    ['a negative expiry', JSON.stringify({ name: 'a', scopes: ['standard'], expiresInDays: -5 }), 'expiresInDays'],
    ['expiry 3651', JSON.stringify({ name: 'a', scopes: ['standard'], expiresInDays: 3651 }), 'expiresInDays'],
    ['a fractional expiry', JSON.stringify({ name: 'a', scopes: ['standard'], expiresInDays: 1.5 }), 'expiresInDays'],
    ['expiry as a string', JSON.stringify({ name: 'a', scopes: ['standard'], expiresInDays: '30' }), 'expiresInDays'],
    ['scopes as a string', JSON.stringify({ name: 'a', scopes: 'standard' }), 'scopes'],
    [
      'a 1,001-character purpose',
      JSON.stringify({ name: 'a', scopes: ['standard'], purpose: 'p'.repeat(1001) }),
      'purpose',
    ],
    ['an unknown field', JSON.stringify({ name: 'a', scopes: ['standard'], owner: 'me' }), 'owner'],
    [
      'a malformed allowlist',
      JSON.stringify({ name: 'a', scopes: ['standard'], allow: { envs: 'prod' } }),
      'allow.envs',
    ],
    ['an array body', JSON.stringify([1]), 'body'],
  ];
  for (const [what, body, field] of badInputs) {
    it(`answers 400 naming "${field}" for ${what}, and stores nothing`, async () => {
      const before = await list();
      const res = await raw(srv, 'POST', '/api/admin/api-keys', admin, body);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'invalid_input');
      assert.equal(res.body.error.field, field);
      assert.ok(res.body.error.message.startsWith(`${field}:`), res.body.error.message);
      assert.deepEqual(await list(), before);
    });
  }

  it('answers 400 invalid_json for malformed JSON, and stores nothing', async () => {
    const before = await list();
    const res = await raw(srv, 'POST', '/api/admin/api-keys', admin, '{"name": "a", "scopes": [');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_json');
    assert.deepEqual(await list(), before);
  });

  it('answers 404 for an unknown key id', async () => {
    const res = await raw(srv, 'POST', '/api/admin/api-keys/nope/disable', admin);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});

describe('API key expiry', () => {
  it('rejects a key with 401 once its lifetime has passed, and lists it as expired', async () => {
    const first = await startTestServer({}, { keepData: true });
    const k = await createApiKeyRecord(first, { scopes: ['standard'], expiresInDays: 1 });
    await call(first, 'GET', '/api/auth/me', { token: k.secret, expect: 200 });
    await first.close();
    // the same data dir two days later (the injectable clock of a restarted server)
    const later = await startTestServer({ SVC_TEST_CLOCK_OFFSET_SECS: String(2 * 86_400) }, { dataDir: first.dataDir });
    try {
      const res = await raw(later, 'GET', '/api/auth/me', k.secret);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'expired_credentials');
      const admin = await adminToken(later);
      const listed = ((await call(later, 'GET', '/api/admin/api-keys', { token: admin })) as { apiKeys: KeyJson[] })
        .apiKeys;
      assert.equal(listed.find((x) => x.id === k.id)?.state, 'expired');
    } finally {
      await later.close();
      const { rmSync } = await import('node:fs');
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
