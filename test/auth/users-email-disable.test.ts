import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createUser, login } from '../helpers/auth.js';

/** Users carry an email (single sign-on matches on it) and can be disabled, which ends their sessions. */
describe('users with an email, disabled and enabled', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('stores an email, refuses it twice in any case, and removes it with null', async () => {
    const id = await createUser(srv, { username: 'erin', password: 'erin-password' });
    const u = (await call(srv, 'PATCH', `/api/admin/users/${id}`, {
      token: admin,
      body: { email: 'Erin@Example.org' },
    })) as { email: string; state: string };
    assert.deepEqual([u.email, u.state], ['Erin@Example.org', 'enabled']);
    const dup = (await call(srv, 'POST', '/api/admin/users', {
      token: admin,
      body: { username: 'erin2', password: 'erin2-password', email: 'erin@example.ORG' },
      expect: 409,
    })) as { error: { code: string; field: string } };
    assert.deepEqual([dup.error.code, dup.error.field], ['already_exists', 'email']);
    const bad = (await call(srv, 'PATCH', `/api/admin/users/${id}`, {
      token: admin,
      body: { email: 'not an email' },
      expect: 400,
    })) as { error: { field: string } };
    assert.equal(bad.error.field, 'email');
    const cleared = (await call(srv, 'PATCH', `/api/admin/users/${id}`, { token: admin, body: { email: null } })) as {
      email: string | null;
    };
    assert.equal(cleared.email, null);
  });

  it("ends a disabled user's sessions and refuses their password like a wrong one, until enabled", async () => {
    const id = await createUser(srv, { username: 'frank', password: 'frank-password' });
    const session = await login(srv, 'frank', 'frank-password');
    await call(srv, 'GET', '/api/auth/me', { token: session, expect: 200 });
    const off = (await call(srv, 'POST', `/api/admin/users/${id}/disable`, { token: admin })) as { state: string };
    assert.equal(off.state, 'disabled');
    const me = (await call(srv, 'GET', '/api/auth/me', { token: session, expect: 401 })) as { error: { code: string } };
    assert.equal(me.error.code, 'disabled_credentials');
    const refused = (await call(srv, 'POST', '/api/auth/login', {
      body: { username: 'frank', password: 'frank-password' },
      expect: 401,
    })) as { error: { code: string; message: string } };
    assert.deepEqual(
      [refused.error.code, refused.error.message],
      ['invalid_credentials', 'invalid username or password'],
    );
    await call(srv, 'POST', `/api/admin/users/${id}/enable`, { token: admin });
    await login(srv, 'frank', 'frank-password');
    // the old session stays ended: disabling bumped the user's session epoch
    await call(srv, 'GET', '/api/auth/me', { token: session, expect: 401 });
  });

  it('refuses to disable the admin user, who could not be enabled again', async () => {
    const users = (await call(srv, 'GET', '/api/admin/users', { token: admin })) as {
      users: { id: string; username: string }[];
    };
    const adminId = users.users.find((u) => u.username === 'admin')!.id;
    const r = (await call(srv, 'POST', `/api/admin/users/${adminId}/disable`, { token: admin, expect: 400 })) as {
      error: { message: string };
    };
    assert.match(r.error.message, /cannot be disabled/);
  });
});
