import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createEnv } from '../helpers/auth.js';
import { ingestCredential } from '../../src/http/auth-hook.js';
import type { FastifyRequest } from 'fastify';

interface TokenJson {
  id: string;
  name: string;
  env: string;
  index: string | null;
  state: string;
  lastFour: string;
  lastUsedAt: string | null;
  secret?: string;
}

describe('ingest tokens through /api/admin/ingest-tokens', () => {
  let srv: TestServer;
  let admin: string;
  let createdSecret: string;
  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    const t = (await call(srv, 'POST', '/api/admin/ingest-tokens', {
      token: admin,
      body: { name: 'api-shipper', env: 'prod', index: 'api' },
      expect: 201,
    })) as TokenJson;
    createdSecret = t.secret!;
  });
  after(async () => srv.close());

  const list = async () =>
    ((await call(srv, 'GET', '/api/admin/ingest-tokens', { token: admin })) as { ingestTokens: TokenJson[] })
      .ingestTokens;

  it('creates a token pinned to an env and index, answering its svi_ secret once', async () => {
    const t = (await call(srv, 'POST', '/api/admin/ingest-tokens', {
      token: admin,
      body: { name: 'web-shipper', env: 'prod', index: 'web' },
      expect: 201,
    })) as TokenJson;
    assert.match(t.secret!, /^svi_[0-9A-Za-z]{43}$/);
    assert.equal(t.env, 'prod');
    assert.equal(t.index, 'web');
    assert.equal(t.state, 'enabled');
    const listed = (await list()).find((x) => x.id === t.id)!;
    assert.equal(listed.secret, undefined);
    assert.equal(listed.lastFour, t.secret!.slice(-4));
    assert.equal(JSON.stringify(await list()).includes(t.secret!), false);
  });

  it('authenticates as a principal pinned to the env and index', () => {
    const p = srv.deps.auth.authenticateIngestToken(createdSecret);
    assert.equal(p.kind, 'ingest_token');
    assert.equal(p.name, 'api-shipper');
    assert.deepEqual(p.pin, { env: 'prod', index: 'api' });
  });

  it('refuses a token for an environment that does not exist with 400 "unknown environment"', async () => {
    const res = await fetch(`${srv.url}/api/admin/ingest-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lost', env: 'nowhere' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unknown_environment');
    assert.match(body.error.message, /unknown environment/);
    assert.equal(
      (await list()).some((t) => t.name === 'lost'),
      false,
    );
  });

  it('refuses a token pinned to a reserved env or index with 400', async () => {
    for (const body of [
      { name: 'r1', env: '_system' },
      { name: 'r2', env: 'prod', index: '_svcmcp' },
    ]) {
      const res = await fetch(`${srv.url}/api/admin/ingest-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'reserved_name');
    }
  });

  it('rejects a disabled token and a deleted token (401 kinds) at authentication', async () => {
    const t = (await call(srv, 'POST', '/api/admin/ingest-tokens', {
      token: admin,
      body: { name: 'short-lived', env: 'default' },
      expect: 201,
    })) as TokenJson;
    assert.equal(srv.deps.auth.authenticateIngestToken(t.secret!).pin.env, 'default');
    await call(srv, 'POST', `/api/admin/ingest-tokens/${t.id}/disable`, { token: admin });
    assert.throws(() => srv.deps.auth.authenticateIngestToken(t.secret!), { code: 'disabled_credentials' });
    await call(srv, 'POST', `/api/admin/ingest-tokens/${t.id}/enable`, { token: admin });
    assert.equal(srv.deps.auth.authenticateIngestToken(t.secret!).name, 'short-lived');
    await call(srv, 'DELETE', `/api/admin/ingest-tokens/${t.id}`, { token: admin, expect: 204 });
    assert.throws(() => srv.deps.auth.authenticateIngestToken(t.secret!), { code: 'invalid_credentials' });
  });

  it('refuses an API key as an ingest credential with insufficient_scope (403)', async () => {
    const k = (await call(srv, 'POST', '/api/admin/api-keys', {
      token: admin,
      body: { name: 'not-for-ingest', scopes: ['admin'] },
      expect: 201,
    })) as { secret: string };
    assert.throws(() => srv.deps.auth.authenticateIngestToken(k.secret), { code: 'insufficient_scope' });
  });

  it('cannot be used for search or admin calls (403)', async () => {
    const res = await fetch(`${srv.url}/api/admin/ingest-tokens`, {
      headers: { authorization: `Bearer ${createdSecret}` },
    });
    assert.equal(res.status, 403);
    const me = await fetch(`${srv.url}/api/auth/me`, { headers: { authorization: `Bearer ${createdSecret}` } });
    assert.equal(me.status, 403);
  });
});

describe('ingest credentials in every native form', () => {
  const tok = 'svi_abc123';
  const req = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as FastifyRequest;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const forms: [string, string | undefined, string | undefined][] = [
    ['Bearer', `Bearer ${tok}`, tok],
    ['Splunk (HEC)', `Splunk ${tok}`, tok],
    ['ApiKey with the token', `ApiKey ${tok}`, tok],
    ['ApiKey with base64 id:token (Elasticsearch)', `ApiKey ${b64(`shipper:${tok}`)}`, tok],
    ['Basic with the token as password', `Basic ${b64(`anything:${tok}`)}`, tok],
    ['Basic with the token as user name and no password', `Basic ${b64(`${tok}:`)}`, tok],
    ['lowercase scheme', `bearer ${tok}`, tok],
    ['no Authorization header', undefined, undefined],
    ['an unknown scheme', `Digest ${tok}`, undefined],
  ];
  for (const [what, header, expected] of forms) {
    it(`reads ${what}`, () => assert.equal(ingestCredential(req(header)), expected));
  }
});
