import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';

/** The saved-search MCP tools through the SDK's own client over Streamable HTTP, against a real svc. */

async function connect(srv: TestServer, bearer: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers = { Authorization: `Bearer ${bearer}` };
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', srv.url), { requestInit: { headers } }));
  return client;
}

function text(res: Awaited<ReturnType<Client['callTool']>>): string {
  return (res.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}

describe('saved searches over MCP', () => {
  let srv: TestServer;
  let shared: { id: string };
  let secret: { id: string };
  const counts = { default: 7, prod: 4 };

  before(async () => {
    srv = await startTestServer();
    const admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    for (const [env, n] of Object.entries(counts)) {
      const token = await createIngestToken(srv, { env });
      const body = Array.from({ length: n }, (_, i) =>
        JSON.stringify({
          time: new Date(Date.now() - i * 1000).toISOString(),
          message: `payment declined ${env} ${i}`,
        }),
      ).join('\n');
      const res = await fetch(`${srv.url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      assert.equal(res.status, 200, await res.text());
    }
    const save = (body: Record<string, unknown>) =>
      call(srv, 'POST', '/api/saved-searches', { token: admin, body, expect: 201 }) as Promise<{ id: string }>;
    shared = await save({ name: 'declined payments', query: 'declined', env: '*', shared: true });
    secret = await save({ name: 'admin only', query: 'declined', env: '*' });
  });
  after(async () => srv?.close());

  it("lists the shared searches a key may see and runs one with the key's own env allowlist", async () => {
    const client = await connect(srv, await createApiKey(srv, { scopes: ['mcp'], allow: { envs: ['prod'] } }));
    const listed = await client.callTool({ name: 'list_saved_searches', arguments: {} });
    const items = (listed.structuredContent as { savedSearches: { id: string; name: string }[] }).savedSearches;
    assert.deepEqual(
      items.map((s) => s.id),
      [shared.id],
      'the private one stays hidden',
    );
    assert.match(text(listed), /declined payments/);
    const ran = await client.callTool({ name: 'run_saved_search', arguments: { id: shared.id, limit: 100 } });
    assert.equal(ran.isError, undefined, text(ran));
    const out = ran.structuredContent as { events: { env: string }[]; meta: { matched: number } };
    assert.equal(out.meta.matched, counts.prod, 'only the events of prod');
    assert.ok(out.events.every((e) => e.env === 'prod'));
    assert.match(text(ran), /in prod\n/);
    // another's private one does not exist for the key
    const hidden = await client.callTool({ name: 'run_saved_search', arguments: { id: secret.id } });
    assert.equal(hidden.isError, true);
    assert.match(text(hidden), /not_found/);
    await client.close();
  });

  it('runs over a range given in the call instead of the saved one', async () => {
    const client = await connect(srv, await createApiKey(srv, { scopes: ['mcp'] }));
    const from = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const ran = await client.callTool({ name: 'run_saved_search', arguments: { id: shared.id, from, to } });
    assert.equal((ran.structuredContent as { meta: { matched: number } }).meta.matched, 0);
    assert.deepEqual((ran.structuredContent as { savedSearch: { range: unknown } }).savedSearch.range, { from, to });
    await client.close();
  });

  it("refuses the tools outside a key's tool allowlist, and records every call in _svcmcp", async () => {
    const name = `saved-bot-${process.pid}`;
    const key = await createApiKey(srv, { scopes: ['mcp'], name, allow: { tools: ['list_saved_searches'] } });
    const client = await connect(srv, key);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['list_saved_searches'],
    );
    await assert.rejects(
      client.callTool({ name: 'run_saved_search', arguments: { id: shared.id } }),
      (e: unknown) => e instanceof McpError && e.code === -32602 && /not available/.test(e.message),
    );
    await client.callTool({ name: 'list_saved_searches', arguments: { name: 'declined' } });
    const refused = await searchSelfLog(srv, `key_name="${name}" tool=run_saved_search`, '_svcmcp');
    assert.equal(refused.events.length, 1);
    assert.equal(refused.events[0].fields.outcome, 'rejected');
    const listed = await searchSelfLog(srv, `key_name="${name}" tool=list_saved_searches`, '_svcmcp');
    assert.equal(listed.events.length, 1);
    assert.equal(listed.events[0].fields.outcome, 'ok');
    await client.close();
  });
});
