import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKey, createApiKeyRecord, createEnv, createIngestToken } from '../helpers/auth.js';

/** /mcp end to end: the SDK's own client over Streamable HTTP against a real svc. */

async function connect(srv: TestServer, bearer?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers: Record<string, string> = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', srv.url), { requestInit: { headers } }));
  return client;
}

async function refusedWith(srv: TestServer, bearer: string | undefined, status: number): Promise<void> {
  await assert.rejects(connect(srv, bearer), (e: unknown) => e instanceof StreamableHTTPError && e.code === status);
}

async function ingest(srv: TestServer, env: string, index: string, lines: object[]): Promise<void> {
  const token = await createIngestToken(srv, { env, index });
  const res = await fetch(`${srv.url}/api/ingest?index=${index}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body: lines.map((l) => JSON.stringify(l)).join('\n'),
  });
  assert.equal(res.status, 200, await res.text());
}

function text(res: Awaited<ReturnType<Client['callTool']>>): string {
  return (res.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}

const now = () => new Date().toISOString();

describe('/mcp over Streamable HTTP', () => {
  let srv: TestServer;
  let mcpKey: string;
  const keyName = `mcp-bot-${process.pid}`;

  before(async () => {
    srv = await startTestServer();
    await createEnv(srv, 'prod');
    await ingest(srv, 'default', 'web', [
      { time: now(), message: 'GET /checkout 500 upstream timeout', host: 'web-1', status: 500 },
      { time: now(), message: 'GET /health 200', host: 'web-2', status: 200 },
    ]);
    await ingest(srv, 'prod', 'payments', [
      { time: now(), message: 'prod-only secret payment failure', host: 'pay-1' },
    ]);
    mcpKey = (await createApiKeyRecord(srv, { scopes: ['mcp'], name: keyName })).secret;
  });
  after(async () => {
    await srv.close();
  });

  it('lists the tools and answers a search with an MCP key', async () => {
    const client = await connect(srv, mcpKey);
    const { tools } = await client.listTools();
    for (const name of [
      'search',
      'aggregate',
      'histogram',
      'list_environments',
      'list_indexes',
      'discover_fields',
      'get_event',
    ]) {
      assert.ok(
        tools.some((t) => t.name === name),
        `missing tool ${name}`,
      );
    }
    const res = await client.callTool({ name: 'search', arguments: { query: 'timeout', env: 'default', limit: 10 } });
    assert.equal(res.isError, undefined, text(res));
    assert.match(text(res), /upstream timeout/);
    const events = (res.structuredContent as { events: { id: string; host: string }[] }).events;
    assert.equal(events.length, 1);
    assert.equal(events[0].host, 'web-1');

    const one = await client.callTool({ name: 'get_event', arguments: { id: events[0].id } });
    assert.equal(one.isError, undefined, text(one));
    assert.match(text(one), /message: GET \/checkout 500 upstream timeout/);

    const agg = await client.callTool({
      name: 'aggregate',
      arguments: { query: '*', aggregation: 'count by host', env: 'default' },
    });
    assert.equal(agg.isError, undefined, text(agg));
    assert.match(text(agg), /web-1 \| 1/);
    await client.close();
  });

  it('refuses anonymous calls with 401', async () => {
    await refusedWith(srv, undefined, 401);
  });

  it('refuses admin-only and standard-only keys with 403, and records the refusal in _svclogs', async () => {
    const admin = await createApiKeyRecord(srv, { scopes: ['admin'] });
    await refusedWith(srv, admin.secret, 403);
    await refusedWith(srv, await createApiKey(srv, { scopes: ['standard'] }), 403);
    const found = await searchSelfLog(
      srv,
      `event=credential_rejected reason=insufficient_scope key_name="${admin.name}"`,
      '_svclogs',
    );
    assert.ok(found.events.length >= 1, 'no credential_rejected record');
    assert.equal(found.events[0].fields.path, '/mcp');
    assert.doesNotMatch(JSON.stringify(found), new RegExp(admin.secret));
  });

  it('refuses a disabled or deleted MCP key with 401', async () => {
    const key = await createApiKeyRecord(srv, { scopes: ['mcp'] });
    const token = await adminToken(srv);
    await call(srv, 'POST', `/api/admin/api-keys/${key.id}/disable`, { token });
    await refusedWith(srv, key.secret, 401);
    await call(srv, 'DELETE', `/api/admin/api-keys/${key.id}`, { token });
    await refusedWith(srv, key.secret, 401);
  });

  it('answers a notification with 202 and no body', async () => {
    const res = await fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcpKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(res.status, 202);
    assert.equal(await res.text(), '');
  });

  it('answers GET /mcp with 405', async () => {
    const res = await fetch(`${srv.url}/mcp`, {
      headers: { authorization: `Bearer ${mcpKey}`, accept: 'text/event-stream' },
    });
    assert.equal(res.status, 405);
  });

  it("hides a tool outside the key's tool allowlist and rejects a call to it", async () => {
    const key = await createApiKey(srv, { scopes: ['mcp'], allow: { tools: ['search', 'list_environments'] } });
    const client = await connect(srv, key);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['list_environments', 'search']);
    await assert.rejects(
      client.callTool({ name: 'aggregate', arguments: { aggregation: 'count' } }),
      (e: unknown) => e instanceof McpError && e.code === -32602,
    );
    await client.close();
  });

  it("keeps another environment's events out of results under an env allowlist", async () => {
    const key = await createApiKey(srv, { scopes: ['mcp'], allow: { envs: ['default'] } });
    const client = await connect(srv, key);
    const all = await client.callTool({ name: 'search', arguments: { query: '*', env: '*', limit: 100 } });
    assert.equal(all.isError, undefined, text(all));
    assert.doesNotMatch(text(all), /prod-only/);
    assert.match(text(all), /upstream timeout/);
    const prod = await client.callTool({ name: 'search', arguments: { query: '*', env: 'prod' } });
    assert.equal(prod.isError, true);
    assert.doesNotMatch(text(prod), /prod-only/);
    const envs = await client.callTool({ name: 'list_environments', arguments: {} });
    assert.deepEqual(
      (envs.structuredContent as { environments: { env: string }[] }).environments.map((e) => e.env),
      ['default'],
    );
    await client.close();
  });

  it('records each call in _system/_svcmcp, where an admin search finds the key name', async () => {
    const client = await connect(srv, mcpKey);
    await client.callTool({ name: 'list_indexes', arguments: {} });
    await client.close();
    const found = await searchSelfLog(srv, `key_name="${keyName}" tool=list_indexes`, '_svcmcp');
    assert.equal(found.events.length, 1, 'no _svcmcp record found');
    assert.equal(found.events[0].fields.key_name, keyName);
    assert.equal(found.events[0].fields.outcome, 'ok');
    assert.equal(typeof found.events[0].fields.duration_ms, 'number');
    assert.doesNotMatch(JSON.stringify(found), /svk_/);
  });

  it('does not let the MCP key search _system', async () => {
    const client = await connect(srv, mcpKey);
    const res = await client.callTool({ name: 'search', arguments: { env: '_system', index: '_svcmcp' } });
    assert.equal(res.isError, true);
    await client.close();
  });
});

describe('/mcp before and after the first MCP key', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv.close();
  });

  it('lets a logged-in user in until an MCP key exists, then only MCP keys', async () => {
    const session = await adminToken(srv);
    const early = await connect(srv, session);
    assert.ok((await early.listTools()).tools.length > 0);
    await early.close();

    const key = await createApiKey(srv, { scopes: ['mcp'] });
    await refusedWith(srv, session, 403);
    await refusedWith(srv, undefined, 401);
    await refusedWith(srv, await createApiKey(srv, { scopes: ['admin'] }), 403);
    const late = await connect(srv, key);
    assert.ok((await late.listTools()).tools.length > 0);
    await late.close();
  });
});
