import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, suiteServer, type TestServer } from '../helpers/server.js';
import { call, createUser, login, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';

async function status(srv: TestServer, path: string, headers: Record<string, string>): Promise<number> {
  return (await fetch(`${srv.url}${path}`, { headers })).status;
}

describe('password login and sessions', () => {
  let srv: TestServer;
  before(async () => (srv = await startTestServer()));
  after(async () => srv.close());

  it('logs in with username and password: a JWT in the body and in an HttpOnly SameSite=Strict cookie', async () => {
    const res = await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      token: string;
      expiresAt: string;
      user: { username: string; role: string; passwordHash?: string };
    };
    assert.match(body.token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(body.user.username, 'admin');
    assert.equal(body.user.role, 'admin');
    assert.equal(body.user.passwordHash, undefined);
    const cookie = res.headers.get('set-cookie')!;
    assert.match(cookie, new RegExp(`^svc_session=${body.token};`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const hours = (Date.parse(body.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 167 && hours <= 168, `session lasts SVC_SESSION_TTL_HOURS (168), got ${hours}`);
  });

  it('accepts the session as a Bearer token and as the cookie', async () => {
    const token = await login(srv, 'admin', TEST_ADMIN_PASSWORD);
    assert.equal(await status(srv, '/api/admin/api-keys', { authorization: `Bearer ${token}` }), 200);
    assert.equal(await status(srv, '/api/admin/api-keys', { cookie: `theme=dark; svc_session=${token}` }), 200);
    const me = (await call(srv, 'GET', '/api/auth/me', { token })) as {
      kind: string;
      name: string;
      role: string;
      scopes: string[];
    };
    assert.deepEqual([me.kind, me.name, me.role], ['user', 'admin', 'admin']);
    assert.deepEqual(me.scopes.sort(), ['admin', 'standard']);
  });

  it('answers a wrong password and an unknown user alike with 401', async () => {
    for (const body of [
      { username: 'admin', password: 'wrong-password' },
      { username: 'nobody', password: 'whatever1' },
    ]) {
      const res = await fetch(`${srv.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="svc"');
      const err = (await res.json()) as { error: { code: string; message: string } };
      assert.deepEqual(err.error, { code: 'invalid_credentials', message: 'invalid username or password' });
    }
  });

  it('answers a login without a password with 400 naming the field', async () => {
    const res = await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin' }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { field: string } }).error.field, 'password');
  });

  it('ends the session at logout: the same token is then 401', async () => {
    const token = await login(srv, 'admin', TEST_ADMIN_PASSWORD);
    const out = await fetch(`${srv.url}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie')!, /svc_session=;.*Max-Age=0/);
    assert.equal(await status(srv, '/api/auth/me', { authorization: `Bearer ${token}` }), 401);
    // other sessions of the same user live on
    assert.equal(
      await status(srv, '/api/auth/me', { authorization: `Bearer ${await login(srv, 'admin', TEST_ADMIN_PASSWORD)}` }),
      200,
    );
  });

  it('rejects a tampered token and a garbage token with 401', async () => {
    const token = await login(srv, 'admin', TEST_ADMIN_PASSWORD);
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'someone-else' }),
    ).toString('base64url');
    assert.equal(await status(srv, '/api/auth/me', { authorization: `Bearer ${h}.${forged}.${s}` }), 401);
    assert.equal(await status(srv, '/api/auth/me', { authorization: 'Bearer not-a-jwt' }), 401);
  });

  it('rate-limits failed logins per user with 429 and Retry-After, even for the right password', async () => {
    await createUser(srv, { username: 'victim', password: 'right-password' });
    const attempt = (password: string) =>
      fetch(`${srv.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'victim', password }),
      });
    for (let i = 0; i < 10; i++) assert.equal((await attempt('wrong-password')).status, 401);
    const limited = await attempt('right-password');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limited');
    // another user from the same address is not locked out
    assert.equal(
      (
        await fetch(`${srv.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
        })
      ).status,
      200,
    );
  });
});

describe('users through /api/admin/users', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('creates a user who can log in with standard access only', async () => {
    await createUser(srv, { username: 'alice', password: 'alice-password', allow: { envs: ['prod'] } });
    const token = await login(srv, 'alice', 'alice-password');
    const me = (await call(srv, 'GET', '/api/auth/me', { token })) as {
      role: string;
      scopes: string[];
      allow: { envs: string[] };
    };
    assert.equal(me.role, 'user');
    assert.deepEqual(me.scopes, ['standard']);
    assert.deepEqual(me.allow.envs, ['prod']);
    assert.equal(await status(srv, '/api/admin/users', { authorization: `Bearer ${token}` }), 403);
  });

  it('lists users without password hashes', async () => {
    const body = (await call(srv, 'GET', '/api/admin/users', { token: admin })) as { users: Record<string, unknown>[] };
    assert.ok(body.users.some((u) => u.username === 'admin'));
    assert.equal(JSON.stringify(body).includes('scrypt'), false);
  });

  it("a new password ends the user's sessions and takes effect", async () => {
    const id = await createUser(srv, { username: 'bob', password: 'bob-password-1' });
    const old = await login(srv, 'bob', 'bob-password-1');
    await call(srv, 'PATCH', `/api/admin/users/${id}`, { token: admin, body: { password: 'bob-password-2' } });
    assert.equal(await status(srv, '/api/auth/me', { authorization: `Bearer ${old}` }), 401);
    await login(srv, 'bob', 'bob-password-2');
  });

  it('promotes a user to admin, and deleting a user ends their sessions', async () => {
    const id = await createUser(srv, { username: 'carol', password: 'carol-password' });
    await call(srv, 'PATCH', `/api/admin/users/${id}`, { token: admin, body: { role: 'admin' } });
    const token = await login(srv, 'carol', 'carol-password');
    assert.equal(await status(srv, '/api/admin/users', { authorization: `Bearer ${token}` }), 200);
    await call(srv, 'DELETE', `/api/admin/users/${id}`, { token: admin, expect: 204 });
    assert.equal(await status(srv, '/api/auth/me', { authorization: `Bearer ${token}` }), 401);
  });

  it('never deletes or demotes the admin user', async () => {
    const users = (
      (await call(srv, 'GET', '/api/admin/users', { token: admin })) as { users: { id: string; username: string }[] }
    ).users;
    const adminId = users.find((u) => u.username === 'admin')!.id;
    await call(srv, 'DELETE', `/api/admin/users/${adminId}`, { token: admin, expect: 409 });
    await call(srv, 'PATCH', `/api/admin/users/${adminId}`, { token: admin, body: { role: 'user' }, expect: 400 });
  });

  for (const [what, body, field] of [
    ['a short password', { username: 'dave', password: 'short' }, 'password'],
    ['an unknown role', { username: 'dave', password: 'long-enough-pw', role: 'root' }, 'role'],
    ['a username with spaces', { username: 'da ve', password: 'long-enough-pw' }, 'username'],
  ] as const) {
    it(`answers 400 naming "${field}" for ${what}, and stores nothing`, async () => {
      const res = await fetch(`${srv.url}/api/admin/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { field: string } }).error.field, field);
      assert.equal(srv.deps.auth.users.byUsername('dave'), undefined);
    });
  }

  it('refuses a duplicate username with 409', async () => {
    await call(srv, 'POST', '/api/admin/users', {
      token: admin,
      body: { username: 'admin', password: 'whatever-123' },
      expect: 409,
    });
  });
});
