import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createApiKeyRecord, createUser, ingestEvents } from '../helpers/auth.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { actionOf } from '../../src/http/audit.js';

/** The audit trail (docs/audit.md): searches, exports, agent questions, MCP calls and changes in `_svclogs`. */

type Fields = Record<string, unknown>;

async function auditRecords(srv: TestServer, q: string): Promise<Fields[]> {
  const res = await searchSelfLog(srv, `event=audit ${q}`, '_svclogs');
  return res.events.map((e) => e.fields);
}

describe('the audit trail', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('names actions after the route: create, update, delete, and the word a POST ends in', () => {
    assert.equal(actionOf('POST', '/api/admin/envs', true), 'admin.envs.create');
    assert.equal(actionOf('PATCH', '/api/admin/envs/:name', false), 'admin.envs.update');
    assert.equal(actionOf('DELETE', '/api/admin/api-keys/:id', false), 'admin.api-keys.delete');
    assert.equal(actionOf('POST', '/api/monitors/:id/run', false), 'monitors.run');
    assert.equal(actionOf('POST', '/api/admin/gc', false), 'admin.gc');
  });

  it("records a search made with an API key with the key's name, id, the query, env, range and rows", async () => {
    await ingestEvents(srv, [{ message: 'audited one' }, { message: 'audited two' }]);
    const key = await createApiKeyRecord(srv, { scopes: ['standard'], name: 'audit-reader' });
    const q = 'audited | head 5';
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q, from: '-1h', env: 'default' })}`, {
      headers: { authorization: `Bearer ${key.secret}`, 'x-forwarded-for': '203.0.113.9' },
    });
    assert.equal(res.status, 200);
    const [rec] = await auditRecords(srv, 'action=search key_name="audit-reader"');
    assert.ok(rec, 'the search is in _svclogs');
    assert.equal(rec.key_id, key.id);
    assert.equal(rec.principal_kind, 'api_key');
    assert.equal(rec.query, q);
    assert.equal(rec.env_name, 'default');
    assert.equal(rec.from, '-1h');
    assert.equal(rec.rows, 2);
    assert.equal(rec.status, 200);
    assert.equal(rec.route, '/api/search');
    // no trusted proxy: the address is the socket's, a forwarded one is not believed
    assert.equal(rec.client_ip, '127.0.0.1');
    assert.equal(typeof rec.duration_ms, 'number');
  });

  it('records an export with the rows it streamed, and a refused search with its status and error', async () => {
    const key = await createApiKeyRecord(srv, { scopes: ['standard'], name: 'audit-exporter' });
    const params = new URLSearchParams({ q: 'audited', from: '-1h', format: 'ndjson' });
    const res = await fetch(`${srv.url}/api/export?${params}`, { headers: { authorization: `Bearer ${key.secret}` } });
    assert.equal(res.status, 200);
    assert.equal((await res.text()).trim().split('\n').length, 2);
    const bad = await fetch(`${srv.url}/api/search?q=${encodeURIComponent('| nosuchpipe')}`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.equal(bad.status, 400);
    const [exp] = await auditRecords(srv, 'action=export key_name="audit-exporter"');
    assert.equal(exp?.rows, 2);
    assert.equal(exp?.query, 'audited');
    const [refused] = await auditRecords(srv, 'action=search key_name="audit-exporter"');
    assert.equal(refused?.status, 400);
    assert.equal(refused?.error, 'invalid_query');
  });

  it('records an MCP search with the tool and its query', async () => {
    const key = await createApiKeyRecord(srv, { scopes: ['mcp'], name: 'audit-mcp', allow: { tools: ['*'] } });
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${key.secret}` } },
      }),
    );
    try {
      await client.callTool({ name: 'search', arguments: { query: 'audited', from: '-1h' } });
    } finally {
      await client.close();
    }
    const recs = await auditRecords(srv, 'key_name="audit-mcp"');
    // initialize and tools/list are not audited: only the tool call
    assert.deepEqual(
      recs.map((r) => r.action),
      ['mcp.search'],
    );
    assert.equal(recs[0].query, 'audited');
    assert.equal(recs[0].key_id, key.id);
    assert.equal(recs[0].fields, undefined, 'the JSON-RPC envelope is not a change');
  });

  it('records an agent question, also when no LLM is configured', async () => {
    const res = await fetch(`${srv.url}/api/agent`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'which hosts failed most?' }),
    });
    assert.equal(res.status, 503);
    const [rec] = await auditRecords(srv, 'action=agent.ask');
    assert.equal(rec?.question, 'which hosts failed most?');
    assert.equal(rec?.user, 'admin');
    assert.equal(rec?.error, 'llm_not_configured');
  });

  it('records admin changes with their target and field names, and never a key secret or a password', async () => {
    const key = await createApiKeyRecord(srv, { scopes: ['standard'], name: 'audit-secret-key' });
    const password = 'Corr3ct-horse-battery-staple-91';
    const userId = await createUser(srv, { username: 'audited-user', password: 'first-password-0123' });
    await call(srv, 'PATCH', `/api/admin/users/${userId}`, { token: admin, body: { password }, expect: 200 });
    await call(srv, 'PATCH', '/api/admin/envs/default', { token: admin, body: { retentionDays: 30 }, expect: 200 });

    const created = await auditRecords(srv, 'action=admin.api-keys.create name="audit-secret-key"');
    assert.equal(created[0]?.user, 'admin');
    assert.equal(created[0]?.status, 201);
    const [pw] = await auditRecords(srv, `action=admin.users.update target="id=${userId}"`);
    assert.equal(pw?.fields, 'password');
    const [env] = await auditRecords(srv, 'action=admin.envs.update target="name=default"');
    assert.equal(env?.fields, 'retentionDays');

    // every record of _svclogs, whole: neither secret appears anywhere
    const all = await searchSelfLog(srv, '* | head 10000', '_svclogs');
    const text = JSON.stringify(all.events);
    assert.ok(all.events.length > 5);
    for (const secret of [key.secret, key.secret.slice(4), password, 'first-password-0123', admin])
      assert.ok(!text.includes(secret), `a secret is in _svclogs: ${secret.slice(0, 6)}…`);
  });
});
