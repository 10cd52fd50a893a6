import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKey, createEnv, createIngestToken, createUser, login } from '../helpers/auth.js';
import { ScriptedProvider } from '../fixtures/llm/scripted-provider.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { eventId } from '../../src/mcp/event-id.js';
import type { EventJson } from '../../src/query/types.js';

/**
 * POST /api/agent against a scripted model: the tools run as the caller (a model asking for an env
 * the user may not read gets an error, never its events), each step is streamed as it happens, the
 * answer cites only ids a tool returned, the step cap holds, and MCP keys need the agent on their
 * tool allowlist.
 */

type Event = {
  type: string;
  delta?: string;
  tool?: string;
  ok?: boolean;
  resultCount?: number;
  arguments?: Record<string, unknown>;
  text?: string;
  citations?: string[];
  code?: string;
};

describe('the agent', () => {
  const llm = new ScriptedProvider();
  let srv: TestServer;
  let admin: string;
  let alice: string;

  before(async () => {
    await llm.start();
    srv = await startTestServer({ SVC_LLM_URL: llm.url, SVC_LLM_MAX_RETRIES: '0' });
    admin = await adminToken(srv);
    for (const env of ['a', 'b']) {
      await createEnv(srv, env);
      const token = await createIngestToken(srv, { env });
      const body = Array.from({ length: 3 }, (_, i) =>
        JSON.stringify({
          time: new Date(Date.now() - 60_000 + i).toISOString(),
          host: `${env}-host`,
          message: `login failed in ${env === 'b' ? 'TOP-SECRET-B' : 'env a'} #${i}`,
        }),
      ).join('\n');
      const res = await fetch(`${srv.url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      assert.equal(res.status, 200);
    }
    await createUser(srv, { username: 'alice', password: 'alice-password-1', allow: { envs: ['a'] } });
    alice = await login(srv, 'alice', 'alice-password-1');
  });
  after(async () => {
    await srv?.close();
    await llm.close();
  });

  async function ask(token: string, body: Record<string, unknown>, path = '/api/agent'): Promise<Event[]> {
    const res = await fetch(`${srv.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
    return (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
  }

  it("searches only what the caller may read: a model asking for env b gets an error, never b's events", async () => {
    const found = (await call(srv, 'GET', '/api/search?q=*&env=a&limit=1', { token: alice })) as {
      events: EventJson[];
    };
    const id = eventId(found.events[0]);
    llm.received.length = 0;
    llm.play(
      { toolCalls: [{ name: 'search', arguments: { query: 'login failed', env: 'b', limit: 5 } }] },
      { toolCalls: [{ name: 'search', arguments: { query: 'login failed', env: 'a', limit: 5 } }] },
      {
        content: `Three failed logins in env a, e.g. [${id}]; also [b/main/2026-01-01T00:00:00.000000Z/0123456789abcdef].`,
      },
    );
    const all = await ask(alice, { question: 'why did logins fail?' });
    // the answer's text streams in pieces as the model writes it, before the answer event
    const answerText = all
      .filter((e) => e.type === 'text')
      .map((e) => e.delta)
      .join('');
    assert.equal(answerText, all.at(-1)!.text);
    assert.ok(all.filter((e) => e.type === 'text').length > 1, 'streamed in more than one piece');
    const events = all.filter((e) => e.type !== 'text');
    assert.deepEqual(
      events.map((e) => [e.type, e.tool ?? '', e.ok ?? '', e.resultCount ?? '']),
      [
        ['tool_call', 'search', '', ''],
        ['tool_result', 'search', false, 0],
        ['tool_call', 'search', '', ''],
        ['tool_result', 'search', true, 3],
        ['answer', '', '', ''],
      ],
    );
    assert.deepEqual(events[0].arguments, { query: 'login failed', env: 'b', limit: 5 });
    const answer = events.at(-1)!;
    assert.deepEqual(answer.citations, [id], 'only an id a tool returned counts as a citation');
    // what went back to the model: the refusal for b, a's events, never b's
    const sent = JSON.stringify(llm.received.map((r) => r.body.messages));
    assert.match(sent, /access_denied/);
    assert.match(sent, /env a #0/);
    assert.doesNotMatch(sent, /TOP-SECRET-B/);
    // the tools offered are the MCP tools
    const offered = (llm.received[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.ok(offered.includes('search') && offered.includes('aggregate'), offered.join());
  });

  it('answers in one JSON document without a stream, and stops calling tools at the step cap', async () => {
    llm.received.length = 0;
    llm.play(...Array.from({ length: 7 }, () => ({ toolCalls: [{ name: 'list_environments', arguments: {} }] })), {
      content: 'Environments: a.',
    });
    const r = (await call(srv, 'POST', '/api/agent', {
      token: alice,
      body: { question: 'which envs are there?' },
      expect: 200,
    })) as { text: string; turns: number; steps: Event[] };
    assert.equal(r.text, 'Environments: a.');
    assert.equal(r.steps.filter((s) => s.type === 'tool_call').length, 7);
    assert.equal(r.turns, 8);
    assert.equal(llm.received.length, 8);
    assert.equal(llm.received[7].body.tool_choice, 'none', 'the last turn must answer');
    assert.equal(llm.received[0].body.tool_choice, 'auto');
  });

  it('answers 503 when the provider fails, and the failure is recorded', async () => {
    llm.play({ status: 500 });
    const r = (await call(srv, 'POST', '/api/agent', {
      token: alice,
      body: { question: 'anything?' },
      expect: 503,
    })) as { error: { code: string } };
    assert.equal(r.error.code, 'llm_unavailable');
    const recs = await searchSelfLog(srv, 'event=llm_error feature=agent', '_svclogs');
    assert.deepEqual(
      recs.events.map((e) => [e.fields.reason, e.fields.status]),
      [['server_error', 500]],
    );
    // a stream that breaks off halfway ends in an error event, not a hang or a crash
    llm.play({ streamBreak: 'Looking at the' });
    const broken = await ask(alice, { question: 'anything?' });
    assert.deepEqual(
      broken.map((e) => e.type),
      ['text', 'error'],
    );
    assert.equal(broken[1].code, 'llm_unavailable');
  });

  it('lets an MCP key use the agent only when its tool allowlist has it', async () => {
    const without = await createApiKey(srv, { scopes: ['mcp'], allow: { tools: ['search'] } });
    const res = (await call(srv, 'POST', '/api/agent', { token: without, body: { question: 'x' }, expect: 403 })) as {
      error: { code: string };
    };
    assert.equal(res.error.code, 'insufficient_scope');
    const withAgent = await createApiKey(srv, { scopes: ['mcp'], allow: { tools: ['agent', 'search'] } });
    llm.received.length = 0;
    llm.play({ content: 'ok' });
    const events = await ask(withAgent, { question: 'x' });
    assert.equal(events.at(-1)!.type, 'answer');
    assert.deepEqual(
      (llm.received[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name),
      ['search'],
      'only the tools the key may use',
    );
    await call(srv, 'POST', '/api/agent', { token: admin, body: { question: '' }, expect: 400 });
  });

  it("writes a query that svc parses, giving the parser's complaint back once", async () => {
    llm.received.length = 0;
    llm.play(
      { json: { query: 'login failed | stats by host', explanation: 'x' } },
      { json: { query: '"login failed" | stats count by host', explanation: 'Counts failed logins per host.' } },
    );
    const r = (await call(srv, 'POST', '/api/agent/query', {
      token: alice,
      body: { question: 'failed logins per host', env: 'a' },
      expect: 200,
    })) as { query: string; checked: boolean };
    assert.deepEqual(r, {
      query: '"login failed" | stats count by host',
      explanation: 'Counts failed logins per host.',
      checked: true,
    });
    const retry = llm.received[1].body.messages.at(-1)!.content;
    assert.match(retry, /does not parse: .*aggregation/);
    llm.play({ json: { query: '| |', explanation: 'x' } }, { json: { query: 'stats (', explanation: 'x' } });
    const bad = (await call(srv, 'POST', '/api/agent/query', {
      token: alice,
      body: { question: 'q' },
      expect: 503,
    })) as { error: { code: string } };
    assert.equal(bad.error.code, 'llm_invalid_output');
  });

  it('explains an event it fetched as the caller, and cannot fetch one the caller may not read', async () => {
    const inA = ((await call(srv, 'GET', '/api/search?q=*&env=a&limit=1', { token: alice })) as { events: EventJson[] })
      .events[0];
    const inB = ((await call(srv, 'GET', '/api/search?q=*&env=b&limit=1', { token: admin })) as { events: EventJson[] })
      .events[0];
    for (const [event, ok] of [
      [inA, true],
      [inB, false],
    ] as const) {
      const id = eventId(event);
      llm.received.length = 0;
      llm.play(
        { toolCalls: [{ name: 'get_event', arguments: { id } }] },
        { content: ok ? `A failed login [${id}].` : 'I cannot see that event.' },
      );
      const events = await ask(alice, { eventId: id }, '/api/agent/explain');
      assert.match(
        llm.received[0].body.messages.at(-1)!.content,
        new RegExp(`Explain this log event.*${id.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      const result = events.find((e) => e.type === 'tool_result')!;
      assert.deepEqual([result.tool, result.ok, result.resultCount], ['get_event', ok, ok ? 1 : 0]);
      const answer = events.at(-1)!;
      assert.deepEqual(answer.citations, ok ? [id] : []);
      const sent = JSON.stringify(llm.received[1].body.messages);
      if (ok) assert.match(sent, /env a #/);
      else assert.doesNotMatch(sent, /TOP-SECRET-B/);
    }
  });
});
