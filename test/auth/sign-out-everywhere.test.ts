import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createApiKey, createUser, login } from '../helpers/auth.js';

describe('sign out everywhere', () => {
  let srv: TestServer;
  suiteServer((s) => (srv = s));

  const me = async (token: string) =>
    (await fetch(`${srv.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;

  it("ends every session of the caller, on every browser, and no one else's", async () => {
    await createUser(srv, { username: 'roamer', password: 'roamer-password' });
    await createUser(srv, { username: 'bystander', password: 'bystander-password' });
    const laptop = await login(srv, 'roamer', 'roamer-password');
    const phone = await login(srv, 'roamer', 'roamer-password');
    const other = await login(srv, 'bystander', 'bystander-password');
    const res = await fetch(`${srv.url}/api/auth/logout-everywhere`, {
      method: 'POST',
      headers: { authorization: `Bearer ${laptop}` },
    });
    assert.equal(res.status, 204);
    assert.match(res.headers.get('set-cookie')!, /svc_session=;.*Max-Age=0/);
    assert.deepEqual([await me(laptop), await me(phone), await me(other)], [401, 401, 200]);
    // a new login works as before
    assert.equal(await me(await login(srv, 'roamer', 'roamer-password')), 200);
  });

  it('answers an API key with 403: a key has no sessions', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'] });
    const res = (await call(srv, 'POST', '/api/auth/logout-everywhere', { token: key, expect: 403 })) as {
      error: { code: string };
    };
    assert.equal(res.error.code, 'insufficient_scope');
  });
});
