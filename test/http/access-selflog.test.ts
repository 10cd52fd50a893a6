import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKeyRecord } from '../helpers/auth.js';

describe('refused credentials in the self-log', () => {
  let srv: TestServer;
  before(async () => (srv = await startTestServer()));
  after(async () => srv.close());

  const findRejections = async (q: string) => (await searchSelfLog(srv, q, '_svclogs')).events;

  it('records a disabled key as credential_rejected with its id and last four, never the secret', async () => {
    const key = await createApiKeyRecord(srv, { scopes: ['standard'] });
    await call(srv, 'POST', `/api/admin/api-keys/${key.id}/disable`, { token: await adminToken(srv) });
    const res = await fetch(`${srv.url}/api/search?q=*`, { headers: { authorization: `Bearer ${key.secret}` } });
    assert.equal(res.status, 401);
    const events = await findRejections('event=credential_rejected reason=disabled_credentials');
    assert.equal(events.length, 1, 'one credential_rejected event');
    const f = events[0].fields;
    assert.equal(f.credential, 'api_key');
    assert.equal(f.key_id, key.id);
    assert.equal(f.path, '/api/search');
    assert.equal(f.last_four, key.secret.slice(-4));
    assert.equal(JSON.stringify(events).includes(key.secret), false);
  });

  it('records an ingest token a compatibility endpoint refused, with its protocol and last four only', async () => {
    const bogus = 'svi_thisTokenDoesNotExist9x7Q';
    const res = await fetch(`${srv.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${bogus}`, 'content-type': 'application/x-ndjson' },
      body: '{"index":{}}\n{"message":"never stored"}\n',
    });
    assert.equal(res.status, 401);
    const events = await findRejections('event=credential_rejected protocol=elasticsearch');
    assert.equal(events.length, 1);
    assert.equal(events[0].fields.credential, 'ingest_token');
    assert.equal(events[0].fields.reason, 'invalid_credentials');
    assert.equal(events[0].fields.last_four, bogus.slice(-4));
    assert.equal(JSON.stringify(events).includes(bogus), false);
  });

  it('records a failed login with the user name only when the user exists', async () => {
    const typo = 'my-Secret-Passw0rd';
    await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'wrong-password' }),
    });
    await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: typo, password: 'x' }),
    });
    const q = 'event=credential_rejected reason=invalid_credentials path="/api/auth/login"';
    let all = await findRejections(q);
    for (let i = 0; i < 20 && all.length < 2; i++) {
      await sleep(100);
      all = await findRejections(q);
    }
    assert.equal(all.length, 2);
    assert.deepEqual(all.map((e) => e.fields.user ?? null).sort(), ['admin', null]);
    assert.equal(JSON.stringify(all).includes(typo), false);
  });
});
