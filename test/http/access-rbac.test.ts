import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createEnv, createIngestToken, createUser, login } from '../helpers/auth.js';

interface SearchAnswer {
  events: { env: string; index: string; message: string }[];
  error?: { code: string; message: string };
}

/** RBAC end to end: allowlists of keys and users narrow search; naming what is forbidden is 403. */
describe('env and index allowlists on search', () => {
  let srv: TestServer;
  const search = async (secret: string, params: Record<string, string>) => {
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q: '*', ...params })}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    return { status: res.status, body: (await res.json()) as SearchAnswer };
  };
  const ingest = async (env: string, index: string, message: string) => {
    const token = await createIngestToken(srv, { env, index });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: JSON.stringify({ message }) + '\n',
    });
    assert.equal(res.status, 200, await res.text());
  };

  before(async () => {
    srv = await startTestServer();
    await createEnv(srv, 'prod');
    await createEnv(srv, 'staging');
    await ingest('prod', 'web', 'prod web event');
    await ingest('prod', 'db', 'prod db event');
    await ingest('staging', 'web', 'staging web event');
  });
  after(async () => srv.close());

  it('lets a key limited to prod read prod', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['prod'] } });
    const res = await search(key, { env: 'prod' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.events.map((e) => e.message).sort(), ['prod db event', 'prod web event']);
  });

  it('answers 403 when a key names an environment outside its allowlist', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['prod'] } });
    const res = await search(key, { env: 'staging' });
    assert.equal(res.status, 403);
    assert.equal(res.body.error?.code, 'access_denied');
  });

  it('narrows env=* silently to the allowed environments', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['staging'] } });
    const res = await search(key, { env: '*' });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.events.map((e) => e.env),
      ['staging'],
    );
  });

  it('limits a key to its indexes: narrowing by default, 403 when naming another', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['prod'], indexes: ['web'] } });
    const all = await search(key, { env: 'prod' });
    assert.deepEqual(
      all.body.events.map((e) => e.index),
      ['web'],
    );
    assert.equal((await search(key, { env: 'prod', index: 'db' })).status, 403);
  });

  it("applies a user's allowlist to their session like a key's", async () => {
    await createUser(srv, { username: 'scoped', password: 'scoped-password', allow: { envs: ['staging'] } });
    const session = await login(srv, 'scoped', 'scoped-password');
    assert.equal((await search(session, { env: 'prod' })).status, 403);
    assert.equal((await search(session, { env: 'staging' })).status, 200);
  });

  it('keeps the _system self-logs to admins', async () => {
    const standard = await createApiKey(srv, { scopes: ['standard'] });
    assert.equal((await search(standard, { env: '_system', index: '_svclogs' })).status, 403);
    assert.equal((await search(await adminToken(srv), { env: '_system', index: '_svclogs' })).status, 200);
  });
});
