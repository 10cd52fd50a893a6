import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUser } from '../helpers/auth.js';

/** A login posted by a proxy on loopback for a client at `client` (X-Forwarded-For), with optional extra headers. */
async function loginVia(
  srv: TestServer,
  client: string,
  username: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${srv.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...headers },
    body: JSON.stringify({ username, password }),
  });
}

async function statusOf(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.arrayBuffer();
  return r.status;
}

describe('behind a trusted proxy (SVC_TRUSTED_PROXIES=loopback)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ SVC_TRUSTED_PROXIES: '127.0.0.1/8, ::1' });
    await createUser(srv, { username: 'bob', password: 'bob-password' });
    await createUser(srv, { username: 'alice', password: 'alice-password' });
    await createUser(srv, { username: 'victim', password: 'victim-password' });
  });
  after(async () => srv.close());

  it("100 failed logins from one client leave another user's login from that client working, and lock only the users who failed there", async () => {
    const attacker = '203.0.113.7';
    // ten unknown names, ten wrong passwords each: 100 verified failures from the attacker's address
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        for (let n = 0; n < 10; n++)
          assert.equal(await statusOf(loginVia(srv, attacker, `ghost${i}`, 'wrong-password')), 401);
      }),
    );
    // the address is over its limit, yet bob, who never failed from it, logs in from it and from elsewhere
    assert.equal(await statusOf(loginVia(srv, attacker, 'bob', 'bob-password')), 200);
    assert.equal(await statusOf(loginVia(srv, '198.51.100.20', 'bob', 'bob-password')), 200);
    // a user who fails once from that address is locked there, not elsewhere
    assert.equal(await statusOf(loginVia(srv, attacker, 'alice', 'wrong-password')), 401);
    assert.equal(await statusOf(loginVia(srv, attacker, 'alice', 'alice-password')), 429);
    assert.equal(await statusOf(loginVia(srv, '198.51.100.21', 'alice', 'alice-password')), 200);
  });

  it('locks a user guessed at from many addresses, whatever address the right password then comes from', async () => {
    for (let i = 1; i <= 10; i++)
      assert.equal(await statusOf(loginVia(srv, `192.0.2.${i}`, 'victim', 'wrong-password')), 401);
    const res = await loginVia(srv, '198.51.100.30', 'victim', 'victim-password');
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    // bob is not affected
    assert.equal(await statusOf(loginVia(srv, '198.51.100.30', 'bob', 'bob-password')), 200);
  });

  it("records the forwarded client address, not the proxy's, as remote_address in the self-log", async () => {
    assert.equal(await statusOf(loginVia(srv, '198.51.100.99', 'bob', 'not-bobs-password')), 401);
    const events = (await searchSelfLog(srv, 'event=credential_rejected credential=password user=bob', '_svclogs'))
      .events;
    assert.deepEqual(
      events.map((e) => e.fields.remote_address),
      ['198.51.100.99'],
    );
  });

  it('sets a Secure cookie when the proxy says the client used https (X-Forwarded-Proto)', async () => {
    const secure = await loginVia(srv, '198.51.100.40', 'bob', 'bob-password', { 'x-forwarded-proto': 'https' });
    assert.equal(secure.status, 200);
    assert.match(secure.headers.get('set-cookie')!, /; Secure/);
    const plain = await loginVia(srv, '198.51.100.40', 'bob', 'bob-password');
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.headers.get('set-cookie')!, /Secure/);
  });

  it("takes the forwarded host as svc's own origin for the cross-site check", async () => {
    const res = await loginVia(srv, '198.51.100.41', 'bob', 'bob-password', {
      origin: 'https://logs.example.com',
      'x-forwarded-host': 'logs.example.com',
    });
    assert.equal(res.status, 200, await res.text());
  });
});

describe('forwarded headers from an address that is not a trusted proxy', () => {
  let srv: TestServer;
  before(async () => {
    // a proxy elsewhere is trusted; the test's own loopback requests are not from it
    srv = await startTestServer({ SVC_TRUSTED_PROXIES: '10.9.9.9' });
    await createUser(srv, { username: 'bob', password: 'bob-password' });
  });
  after(async () => srv.close());

  it("ignores X-Forwarded-For: the self-log has the sender's own address", async () => {
    assert.equal(await statusOf(loginVia(srv, '198.51.100.99', 'bob', 'not-bobs-password')), 401);
    const events = (await searchSelfLog(srv, 'event=credential_rejected credential=password user=bob', '_svclogs'))
      .events;
    assert.deepEqual(
      events.map((e) => e.fields.remote_address),
      ['127.0.0.1'],
    );
  });

  it('ignores X-Forwarded-Proto and X-Forwarded-Host: no Secure cookie, and a foreign origin stays cross-site', async () => {
    const res = await loginVia(srv, '198.51.100.40', 'bob', 'bob-password', { 'x-forwarded-proto': 'https' });
    assert.equal(res.status, 200);
    assert.doesNotMatch(res.headers.get('set-cookie')!, /Secure/);
    const cross = await loginVia(srv, '198.51.100.41', 'bob', 'bob-password', {
      origin: 'https://logs.example.com',
      'x-forwarded-host': 'logs.example.com',
    });
    assert.equal(cross.status, 403);
  });
});
