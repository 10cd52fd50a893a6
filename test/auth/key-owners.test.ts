import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createUser, login } from '../helpers/auth.js';
import { migrateKeyOwners } from '../../src/control/migrate.js';
import { emptyDoc, type ApiKeyRecord, type ControlDoc, type UserRecord } from '../../src/control/records.js';

interface KeyJson {
  id: string;
  name: string;
  expiresAt: string | null;
  createdAt: string;
  createdBy: string;
  ownerId: string | null;
  state: string;
  ownerState: string;
  secret: string;
}

async function status(
  srv: TestServer,
  path: string,
  token: string,
): Promise<{ status: number; code?: string; message?: string }> {
  const res = await fetch(`${srv.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: { code: string; message: string } };
  return { status: res.status, code: body.error?.code, message: body.error?.message };
}

describe('API keys belong to the user who made them', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  /** An admin user and a session of theirs, who then makes keys. */
  async function adminUser(username: string): Promise<{ id: string; session: string }> {
    const id = await createUser(srv, { username, password: `${username}-password`, role: 'admin' });
    return { id, session: await login(srv, username, `${username}-password`) };
  }
  const makeKey = async (token: string, body: Record<string, unknown>) =>
    (await call(srv, 'POST', '/api/admin/api-keys', { token, body, expect: 201 })) as KeyJson;
  const keyView = async (id: string) =>
    (await call(srv, 'GET', `/api/admin/api-keys/${id}`, { token: admin })) as KeyJson;

  it('refuses the admin key of a deleted admin with 401, and lists it as "owner removed"', async () => {
    const owner = await adminUser('gone-admin');
    const key = await makeKey(owner.session, { name: 'gone-admin-key', scopes: ['admin'] });
    assert.equal(key.ownerId, owner.id);
    assert.equal(key.createdBy, 'gone-admin');
    assert.equal((await status(srv, '/api/admin/users', key.secret)).status, 200);
    await call(srv, 'DELETE', `/api/admin/users/${owner.id}`, { token: admin, expect: 204 });
    const refused = await status(srv, '/api/admin/users', key.secret);
    assert.deepEqual([refused.status, refused.code], [401, 'disabled_credentials']);
    assert.match(refused.message!, /no longer exists/);
    assert.equal((await status(srv, '/api/auth/me', key.secret)).status, 401);
    const view = await keyView(key.id);
    assert.deepEqual([view.state, view.ownerState], ['enabled', 'removed']);
  });

  it('refuses the keys of a disabled user until the user is enabled again', async () => {
    const owner = await adminUser('paused-admin');
    const key = await makeKey(owner.session, { name: 'paused-admin-key', scopes: ['standard'] });
    await call(srv, 'POST', `/api/admin/users/${owner.id}/disable`, { token: admin, expect: 200 });
    const refused = await status(srv, '/api/auth/me', key.secret);
    assert.deepEqual([refused.status, refused.code], [401, 'disabled_credentials']);
    assert.match(refused.message!, /is disabled/);
    assert.equal((await keyView(key.id)).ownerState, 'disabled');
    await call(srv, 'POST', `/api/admin/users/${owner.id}/enable`, { token: admin, expect: 200 });
    assert.equal((await status(srv, '/api/auth/me', key.secret)).status, 200);
    assert.equal((await keyView(key.id)).ownerState, 'active');
  });

  it("refuses a demoted admin's Admin API key, admin routes included, and keeps their standard key working", async () => {
    const owner = await adminUser('demoted-admin');
    const adminKey = await makeKey(owner.session, { name: 'demoted-admin-key', scopes: ['admin'] });
    const readKey = await makeKey(owner.session, { name: 'demoted-read-key', scopes: ['standard'] });
    await call(srv, 'PATCH', `/api/admin/users/${owner.id}`, { token: admin, body: { role: 'user' }, expect: 200 });
    const refused = await status(srv, '/api/admin/api-keys', adminKey.secret);
    assert.deepEqual([refused.status, refused.code], [401, 'disabled_credentials']);
    assert.match(refused.message!, /no longer an admin/);
    assert.equal((await status(srv, '/api/auth/me', readKey.secret)).status, 200);
    assert.equal((await keyView(adminKey.id)).ownerState, 'not_admin');
    // promoted again, the key is theirs to use again: nothing was changed on the key itself
    await call(srv, 'PATCH', `/api/admin/users/${owner.id}`, { token: admin, body: { role: 'admin' }, expect: 200 });
    assert.equal((await status(srv, '/api/admin/api-keys', adminKey.secret)).status, 200);
  });

  it("gives a key made with an admin key to that key's owner, so it dies with them too", async () => {
    const owner = await adminUser('chain-admin');
    const first = await makeKey(owner.session, { name: 'chain-first', scopes: ['admin'] });
    const second = await makeKey(first.secret, { name: 'chain-second', scopes: ['standard'] });
    assert.deepEqual([second.ownerId, second.createdBy], [owner.id, 'chain-first']);
    await call(srv, 'DELETE', `/api/admin/users/${owner.id}`, { token: admin, expect: 204 });
    assert.equal((await status(srv, '/api/auth/me', second.secret)).status, 401);
  });

  it('applies the default expiry of the settings to a key created without one, and null still means never', async () => {
    await call(srv, 'PATCH', '/api/admin/settings', { token: admin, body: { apiKeyExpiryDefaultDays: 30 } });
    try {
      const key = await makeKey(admin, { name: 'default-expiry', scopes: ['standard'] });
      assert.equal(Date.parse(key.expiresAt!) - Date.parse(key.createdAt), 30 * 86_400_000);
      const never = await makeKey(admin, { name: 'never-expires', scopes: ['standard'], expiresInDays: null });
      assert.equal(never.expiresAt, null);
      const settings = (await call(srv, 'GET', '/api/admin/settings', { token: admin })) as {
        settings: { apiKeyExpiryDefaultDays?: number };
      };
      assert.equal(settings.settings.apiKeyExpiryDefaultDays, 30);
    } finally {
      await call(srv, 'PATCH', '/api/admin/settings', { token: admin, body: { apiKeyExpiryDefaultDays: null } });
    }
  });

  it('holds Admin API keys to the maximum expiry: longer or never is 400 naming expiresInDays, none asked gets the maximum', async () => {
    await call(srv, 'PATCH', '/api/admin/settings', {
      token: admin,
      body: { adminKeyMaxDays: 90, apiKeyExpiryDefaultDays: 365 },
    });
    try {
      for (const expiresInDays of [365, null]) {
        const res = await fetch(`${srv.url}/api/admin/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `too-long-${String(expiresInDays)}`, scopes: ['admin'], expiresInDays }),
        });
        assert.equal(res.status, 400);
        const err = ((await res.json()) as { error: { code: string; message: string; field: string } }).error;
        assert.deepEqual([err.code, err.field], ['invalid_input', 'expiresInDays']);
        assert.match(err.message, /Admin API key must expire within 90 days/);
      }
      const capped = await makeKey(admin, { name: 'capped-admin', scopes: ['admin'] });
      assert.equal(Date.parse(capped.expiresAt!) - Date.parse(capped.createdAt), 90 * 86_400_000);
      const within = await makeKey(admin, { name: 'within-admin', scopes: ['admin'], expiresInDays: 7 });
      assert.equal(Date.parse(within.expiresAt!) - Date.parse(within.createdAt), 7 * 86_400_000);
      // the maximum is for Admin API keys only
      const standard = await makeKey(admin, { name: 'long-standard', scopes: ['standard'], expiresInDays: 3650 });
      assert.equal(Date.parse(standard.expiresAt!) - Date.parse(standard.createdAt), 3650 * 86_400_000);
    } finally {
      await call(srv, 'PATCH', '/api/admin/settings', {
        token: admin,
        body: { adminKeyMaxDays: null, apiKeyExpiryDefaultDays: null },
      });
    }
  });
});

describe('keys of documents written before owners were kept', () => {
  const user = (id: string, username: string): UserRecord => ({
    id,
    username,
    passwordHash: 'x',
    role: 'admin',
    allow: { envs: ['*'], indexes: ['*'], tools: ['*'] },
    sessionEpoch: 0,
    createdAt: '',
    updatedAt: '',
  });
  const key = (id: string, name: string, createdBy: string): Omit<ApiKeyRecord, 'ownerId'> => ({
    id,
    name,
    createdBy,
    createdAt: '',
    lastUsedAt: null,
    disabled: false,
    secretHmac: id,
    lastFour: 'abcd',
    purpose: '',
    scopes: ['admin', 'standard'],
    allow: { envs: ['*'], indexes: ['*'], tools: ['*'] },
    expiresAt: null,
  });

  it('finds each owner by the recorded name, through keys made by keys, and flags a creator gone with null', () => {
    const doc: ControlDoc = { ...emptyDoc('2026-01-01T00:00:00Z'), users: [user('u1', 'admin'), user('u2', 'ops')] };
    // listed before the key that made it: the chain is followed whatever the order
    doc.apiKeys = [
      key('k3', 'grandchild', 'child'),
      key('k2', 'child', 'root-key'),
      key('k1', 'root-key', 'ops'),
      key('k4', 'orphan', 'deleted-user'),
      key('k5', 'by-admin', 'admin'),
    ] as ApiKeyRecord[];
    migrateKeyOwners(doc);
    assert.deepEqual(Object.fromEntries(doc.apiKeys.map((k) => [k.name, k.ownerId])), {
      grandchild: 'u2',
      child: 'u2',
      'root-key': 'u2',
      orphan: null,
      'by-admin': 'u1',
    });
    // idempotent: a key already owned keeps its owner, even if a user of its creator's name appears later
    doc.users.push(user('u9', 'deleted-user'));
    migrateKeyOwners(doc);
    assert.equal(doc.apiKeys.find((k) => k.name === 'orphan')!.ownerId, null);
  });
});
