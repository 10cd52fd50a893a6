import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';

describe('search routes', () => {
  let srv: TestServer;
  let admin: string;
  const get = async (path: string, token?: string) => {
    const res = await fetch(`${srv.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: await res.json() }; // read field by field
  };

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    const lines = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({
        ts: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        message: `request ${i} ${i % 3 === 0 ? 'failed' : 'ok'}`,
        status: i % 3 === 0 ? 500 : 200,
      }),
    );
    for (const env of ['default', 'prod']) {
      const t = await createIngestToken(srv, { env, index: 'web' });
      const res = await fetch(`${srv.url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/x-ndjson' },
        body: lines.join('\n'),
      });
      assert.equal(res.status, 200);
    }
  });
  after(async () => {
    await srv.close();
  });

  it('answers events newest first with meta', async () => {
    const r = await get('/api/search?q=failed&limit=2', admin);
    assert.equal(r.status, 200);
    assert.equal(r.body.events.length, 2);
    assert.equal(r.body.meta.matched, 10);
    assert.match(r.body.events[0].message, /request 27 failed/);
    assert.equal(r.body.events[0].fields.status, 500);
    assert.equal(typeof r.body.meta.tookMs, 'number');
  });

  it('answers a table for * | stats count by index', async () => {
    const r = await get(`/api/search?${new URLSearchParams({ q: '* | stats count by index', env: '*' })}`, admin);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.columns, ['index', 'count']);
    assert.deepEqual(r.body.rows, [['web', 60]]);
  });

  it('takes the same parameters as a JSON body on POST', async () => {
    const res = await fetch(`${srv.url}/api/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'status>=500 | stats count', env: 'prod' }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { rows: unknown[][] }).rows, [[10]]);
  });

  it('rejects a malformed query with 400, the position and the token', async () => {
    const r = await get(`/api/search?${new URLSearchParams({ q: 'error | stats avg' })}`, admin);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'invalid_query');
    assert.equal(r.body.error.message, 'unexpected end of query: missing "(field)" after "avg"');
    assert.equal(r.body.error.position, 17);
    assert.equal(r.body.error.token, '');
    const bad = await get(`/api/search?${new URLSearchParams({ q: 'a | nope' })}`, admin);
    assert.deepEqual([bad.status, bad.body.error.position, bad.body.error.token], [400, 4, 'nope']);
  });

  it('rejects a bad time and a bad limit with 400', async () => {
    assert.equal((await get('/api/search?q=*&from=yesterday', admin)).status, 400);
    assert.equal((await get('/api/search?q=*&limit=0', admin)).status, 400);
  });

  it('rejects a range written backwards (from after to) with 400 invalid_time naming both', async () => {
    const bad = await get('/api/search?q=*&from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z', admin);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_time');
    assert.match(bad.body.error.message, /from "2024-02-01T00:00:00Z" is after to "2024-01-01T00:00:00Z"/);
    assert.equal((await get('/api/search?q=*&from=-1h&to=now', admin)).status, 200);
  });

  it('refuses anonymous calls with 401 and a forbidden env with 403', async () => {
    assert.equal((await get('/api/search?q=*')).status, 401);
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['default'] } });
    assert.equal((await get('/api/search?q=*&env=prod', key)).status, 403);
    const all = await get(`/api/search?${new URLSearchParams({ q: '* | stats count by env', env: '*' })}`, key);
    assert.deepEqual(all.body.rows, [['default', 30]]);
    const mcpOnly = await createApiKey(srv, { scopes: ['mcp'] });
    assert.equal((await get('/api/search?q=*', mcpOnly)).status, 403);
  });

  it('hints at the time range when nothing matches', async () => {
    const r = await get('/api/search?q=*&from=-1h', admin);
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.matched, 0);
    assert.equal(r.body.meta.hint.eventsOutsideRange, 30);
  });

  it('answers a histogram and the fields with top values', async () => {
    const h = await get('/api/histogram?q=failed&buckets=3', admin);
    assert.equal(h.status, 200);
    assert.equal(
      h.body.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0),
      10,
    );
    const f = await get('/api/fields?q=*&top=2', admin);
    assert.equal(f.status, 200);
    const status = f.body.fields.find((x: { name: string }) => x.name === 'status');
    assert.deepEqual(status.top, [
      { value: 200, count: 20 },
      { value: 500, count: 10 },
    ]);
  });
});
