import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ALLOW_ALL, type ApiKeyPrincipal, type Principal } from '../../src/auth/principal.js';
import { systemClock } from '../../src/clock/clock.js';
import { resolveSearchTargets } from '../../src/auth/rbac.js';
import { buildMcpServer } from '../../src/mcp/mcp-server.js';
import type { McpDeps } from '../../src/mcp/tools/types.js';
import type { EventJson, SearchRequest, SearchResult, SearchService } from '../../src/query/types.js';
import type { McpCallRecord, SelfLog } from '../../src/selflog/types.js';
import { NULL_SELFLOG } from '../../src/selflog/types.js';

/**
 * The MCP tools over the SDK's in-memory transport, with a SearchService stand-in that narrows by
 * the real RBAC. The end-to-end tests in mcp-http.test.ts use the real engine.
 */

const EVENTS: EventJson[] = [
  {
    time: '2026-11-22T04:00:02.000001Z',
    env: 'default',
    index: 'web',
    host: 'web-1',
    source: 'nginx',
    sourcetype: 'access',
    message: 'GET /a 500',
    fields: { status: 500 },
  },
  {
    time: '2026-11-22T04:00:01Z',
    env: 'prod',
    index: 'api',
    host: 'api-1',
    source: 'app',
    sourcetype: 'json',
    message: 'payment declined',
    fields: { user: 'u1' },
  },
];

class FakeSearch implements SearchService {
  calls: SearchRequest[] = [];
  stopped = false;
  async search(p: Principal, req: SearchRequest): Promise<SearchResult> {
    this.calls.push(req);
    const t = resolveSearchTargets(p, req, ['default', 'prod']);
    let events = EVENTS.filter((e) => t.envs.includes(e.env) && (t.indexes === null || t.indexes.includes(e.index)));
    if (req.q.includes('| stats'))
      return {
        events: [],
        columns: ['index', 'count'],
        rows: [['web', 1]],
        meta: { matched: 1, scanned: 2, tookMs: 1 },
      };
    if (req.q === 'hang') {
      // runs until its caller goes away, like a long search that DuckDB is interrupted in
      return new Promise((_, reject) =>
        req.signal?.addEventListener('abort', () => ((this.stopped = true), reject(new Error('stopped'))), {
          once: true,
        }),
      );
    }
    if (req.q === 'many')
      events = Array.from({ length: 300 }, (_, i) => ({ ...EVENTS[0], message: `${'x'.repeat(500)} ${i}` }));
    return { events: events.slice(0, req.limit ?? 100), meta: { matched: events.length, scanned: 2, tookMs: 1 } };
  }
  async histogram() {
    return {
      spanSecs: 60,
      buckets: [{ time: '2026-11-22T04:00:00Z', count: 2 }],
      meta: { matched: 2, scanned: 2, tookMs: 1 },
    };
  }
  async fields() {
    return {
      fields: [{ name: 'status', type: 'number', count: 1, top: [{ value: 500, count: 1 }] }],
      meta: { matched: 1, scanned: 1, tookMs: 1 },
    };
  }
}

function key(allow: Partial<ApiKeyPrincipal['allow']> = {}): ApiKeyPrincipal {
  return {
    kind: 'api_key',
    id: 'k_1',
    name: 'assistant',
    scopes: new Set(['mcp']),
    allow: { ...ALLOW_ALL, ...allow },
    createdBy: 'admin',
  };
}

async function connect(principal: Principal, records: McpCallRecord[] = []) {
  const search = new FakeSearch();
  const selflog: SelfLog = { ...NULL_SELFLOG, mcpCall: (r) => void records.push(r) };
  const deps: McpDeps = {
    search,
    control: {
      envs: () => [
        { name: 'default', createdAt: '' },
        { name: 'prod', createdAt: '' },
      ],
    },
    store: {
      partitions: () => [
        { env: 'default', index: 'web', events: 1, minTimeUs: 1_700_000_000_000_000, maxTimeUs: 1_700_000_001_000_000 },
        { env: 'prod', index: 'api', events: 1, minTimeUs: 1_700_000_000_000_000, maxTimeUs: 1_700_000_000_000_000 },
        {
          env: '_system',
          index: '_svcmcp',
          events: 3,
          minTimeUs: 1_700_000_000_000_000,
          maxTimeUs: 1_700_000_000_000_000,
        },
      ],
    },
    // the saved-search tools run against a real server in test/saved-searches/saved-searches-mcp.test.ts
    savedSearches: {
      list: () => [],
      run: () => Promise.reject(new Error('saved searches are not part of these tests')),
    },
    selflog,
    clock: systemClock,
    log: pino({ level: 'silent' }),
  };
  const [a, b] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(deps, principal).connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  return { client, search, records };
}

function text(res: Awaited<ReturnType<Client['callTool']>>): string {
  return (res.content as { type: string; text: string }[])[0].text;
}

describe('MCP tools', () => {
  it('lists every tool with a description that teaches the query language', async () => {
    const { client } = await connect(key());
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'search',
        'aggregate',
        'histogram',
        'list_environments',
        'list_indexes',
        'discover_fields',
        'get_event',
        'list_saved_searches',
        'run_saved_search',
      ],
    );
    const search = tools.find((t) => t.name === 'search')!;
    assert.match(search.description!, /stats count/);
    assert.match(search.description!, /-15m/);
    assert.ok(search.inputSchema.properties?.query);
    assert.ok(search.inputSchema.properties?.limit);
  });

  it('returns events as compact text and structured content with ids that get_event resolves', async () => {
    const { client } = await connect(key());
    const res = await client.callTool({ name: 'search', arguments: { query: 'error', env: 'default', limit: 10 } });
    assert.match(text(res), /web-1 .*GET \/a 500 .*id=default\/web\//);
    const events = (res.structuredContent as { events: { id: string }[] }).events;
    assert.equal(events.length, 1);
    const one = await client.callTool({ name: 'get_event', arguments: { id: events[0].id } });
    assert.equal(one.isError, undefined);
    assert.match(text(one), /message: GET \/a 500/);
    assert.match(text(one), /field status: 500/);
  });

  it('truncates a large answer with a clear note', async () => {
    const { client } = await connect(key());
    const res = await client.callTool({ name: 'search', arguments: { query: 'many', limit: 300 } });
    assert.match(text(res), /\[truncated: showing \d+ of 300 returned events/);
    assert.ok(text(res).length < 26_000);
    assert.ok((res.structuredContent as { truncated: { shown: number } }).truncated.shown < 300);
  });

  it('turns an aggregation into a stats pipeline and answers a table', async () => {
    const { client, search } = await connect(key());
    const res = await client.callTool({ name: 'aggregate', arguments: { query: '*', aggregation: 'count by index' } });
    assert.equal(search.calls[0].q, '* | stats count by index');
    assert.match(text(res), /index \| count\nweb \| 1/);
  });

  it('hides a tool outside the allowlist and rejects a call to it with a JSON-RPC error', async () => {
    const records: McpCallRecord[] = [];
    const { client } = await connect(key({ tools: ['search'] }), records);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search'],
    );
    await assert.rejects(
      client.callTool({ name: 'aggregate', arguments: { aggregation: 'count' } }),
      (e: unknown) => e instanceof McpError && e.code === -32602 && /not available/.test(e.message),
    );
    assert.equal(records[0].outcome, 'rejected');
    assert.equal(records[0].errorCode, 'tool_hidden');
  });

  it('answers a forbidden env as a tool error and lists only allowed environments', async () => {
    const { client } = await connect(key({ envs: ['default'] }));
    const res = await client.callTool({ name: 'search', arguments: { env: 'prod' } });
    assert.equal(res.isError, true);
    assert.match(text(res), /access_denied/);
    const envs = await client.callTool({ name: 'list_environments', arguments: {} });
    assert.deepEqual(
      (envs.structuredContent as { environments: { env: string }[] }).environments.map((e) => e.env),
      ['default'],
    );
    const idx = await client.callTool({ name: 'list_indexes', arguments: {} });
    assert.deepEqual(
      (idx.structuredContent as { indexes: { index: string }[] }).indexes.map((i) => i.index),
      ['web'],
    );
  });

  it('records each call with the key name, tool, outcome and result count', async () => {
    const records: McpCallRecord[] = [];
    const { client } = await connect(key(), records);
    await client.callTool({ name: 'histogram', arguments: { query: 'error', from: '-1h' } });
    assert.equal(records.length, 1);
    assert.equal(records[0].principalName, 'assistant');
    assert.equal(records[0].tool, 'histogram');
    assert.equal(records[0].outcome, 'ok');
    assert.equal(records[0].resultCount, 1);
    assert.deepEqual(records[0].args, { query: 'error', from: '-1h' });
  });

  it('rejects arguments of the wrong type with a JSON-RPC error', async () => {
    const { client } = await connect(key());
    await assert.rejects(
      client.callTool({ name: 'search', arguments: { limit: 'lots' } }),
      (e: unknown) => e instanceof McpError && e.code === -32602,
    );
    await assert.rejects(
      client.callTool({ name: 'search', arguments: { q: 'error' } }),
      (e: unknown) => e instanceof McpError && /unknown argument "q"; this tool takes query, env/.test(e.message),
    );
  });

  it("stops a tool's search when the client goes away", async () => {
    const { client, search } = await connect(key());
    const call = client.callTool({ name: 'search', arguments: { query: 'hang' } }).catch(() => 'gone');
    while (search.calls.length === 0) await new Promise((r) => setImmediate(r));
    assert.ok(search.calls[0].signal instanceof AbortSignal);
    assert.equal(search.stopped, false);
    await client.close();
    assert.equal(await call, 'gone');
    assert.equal(search.stopped, true);
  });

  it("answers tools/call params that are not the schema's (arguments not an object, no name) with -32602, not -32603", async () => {
    const { client } = await connect(key());
    for (const params of [
      { name: 'search', arguments: 'error' },
      { name: 'search', arguments: [1] },
      { arguments: {} },
      { name: 7 },
    ]) {
      await assert.rejects(
        client.callTool(params as never),
        (e: unknown) => e instanceof McpError && e.code === -32602 && /Invalid tools\/call request/.test(e.message),
        JSON.stringify(params),
      );
    }
  });
});
