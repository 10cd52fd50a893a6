import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { z } from 'zod';
import { LlmProvider, type ChatRequest } from '../../src/llm/provider.js';
import { loadConfig } from '../../src/config/load.js';
import { OutboundClient } from '../../src/outbound/client.js';
import { NO_ALLOW } from '../../src/outbound/allow-list.js';
import { NULL_SELFLOG, type SelfLog } from '../../src/selflog/types.js';
import { ScriptedProvider } from '../fixtures/llm/scripted-provider.js';
import { freePort } from '../helpers/ports.js';

/**
 * The provider against a scripted OpenAI-compatible server: what it sends, what it makes of each
 * kind of answer, and that every failure is one `llm_error` record (never the key or the prompt)
 * and an SvcError, never a crash.
 */

const KEY = 'sk-test-secret-key-123';
const PROMPT = 'the prompt holds log data: user=alice password-reset';
const schema = {
  name: 'verdict',
  schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false },
};
const check = z.object({ ok: z.boolean() }).strict();
/** As svc builds it with SVC_OUTBOUND_ALLOW unset: the provider's own URL is trusted all the same. */
const OUTBOUND = new OutboundClient(NO_ALLOW);

function recorder(): SelfLog & { got: Record<string, unknown>[] } {
  const got: Record<string, unknown>[] = [];
  return {
    ...NULL_SELFLOG,
    got,
    service: (event: string, detail: Record<string, unknown>) => void got.push({ event, ...detail }),
  } as SelfLog & { got: typeof got };
}

describe('LLM provider', () => {
  const server = new ScriptedProvider();
  let log: ReturnType<typeof recorder>;
  let llm: LlmProvider;
  let now = Date.UTC(2026, 10, 24);
  const make = (env: Record<string, string> = {}) =>
    new LlmProvider(
      loadConfig({
        SVC_LLM_URL: server.url,
        SVC_LLM_MODEL: 'tiny',
        SVC_LLM_API_KEY: KEY,
        SVC_LLM_MAX_RETRIES: '2',
        ...env,
      }).llm,
      log,
      () => now,
      OUTBOUND,
    );
  const req = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
    feature: 'monitor',
    messages: [{ role: 'user', content: PROMPT }],
    ...extra,
  });
  const noSecrets = () => {
    const text = JSON.stringify(log.got);
    assert.doesNotMatch(text, new RegExp(KEY));
    assert.doesNotMatch(text, /alice|password-reset/);
  };

  before(() => server.start());
  after(() => server.close());
  beforeEach(() => {
    log = recorder();
    server.received.length = 0;
    llm = make();
  });

  it('asks for JSON of a schema and checks what comes back', async () => {
    server.play({ json: { ok: true } });
    assert.deepEqual(await llm.chatJson({ ...req(), jsonSchema: schema }, check), { ok: true });
    const [r] = server.received;
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.body.model, 'tiny');
    assert.deepEqual(r.body.response_format, { type: 'json_schema', json_schema: { ...schema, strict: true } });
    assert.deepEqual(r.body.messages, [{ role: 'user', content: PROMPT }]);
    assert.deepEqual(log.got, []);
  });

  it('passes tools and a forced tool choice, and reads the tool calls', async () => {
    server.play({ toolCalls: [{ name: 'search', arguments: { query: 'error' } }] });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
      },
    ];
    const a = await llm.chat(req({ tools, toolChoice: 'required' }));
    assert.deepEqual(a.toolCalls, [{ id: 'call_0', name: 'search', arguments: '{"query":"error"}' }]);
    assert.equal(a.finishReason, 'tool_calls');
    assert.equal(server.received[0].body.tool_choice, 'required');
    assert.deepEqual(server.received[0].body.tools, tools);
  });

  it('retries 429 and 500 with backoff, and takes the answer that follows', async () => {
    server.play({ status: 429 }, { status: 500 }, { json: { ok: false } });
    assert.deepEqual(await llm.chatJson({ ...req(), jsonSchema: schema }, check), { ok: false });
    assert.equal(server.received.length, 3);
    assert.deepEqual(log.got, []);
  });

  it('records a provider that keeps failing once, with its status, and throws llm_unavailable', async () => {
    server.play({ status: 500 }, { status: 500 }, { status: 503, message: `echoing ${PROMPT}` });
    await assert.rejects(llm.chat(req()), (e: Error & { code?: string }) => e.code === 'llm_unavailable');
    assert.equal(server.received.length, 3);
    assert.equal(log.got.length, 1);
    assert.deepEqual(
      [log.got[0].event, log.got[0].reason, log.got[0].status, log.got[0].feature, log.got[0].model],
      ['llm_error', 'server_error', 503, 'monitor', 'tiny'],
    );
    assert.equal(log.got[0].provider, new URL(server.url).host);
    noSecrets();
  });

  it('gives up on a provider that does not answer in time', async () => {
    llm = make({ SVC_LLM_TIMEOUT_SECS: '1', SVC_LLM_MAX_RETRIES: '0' });
    server.play({ hang: true });
    await assert.rejects(llm.chat(req()), /timeout/);
    assert.deepEqual(
      log.got.map((g) => g.reason),
      ['timeout'],
    );
  });

  it('records a provider it cannot reach', async () => {
    const port = await freePort();
    llm = new LlmProvider(
      loadConfig({ SVC_LLM_URL: `http://127.0.0.1:${port}/v1`, SVC_LLM_MAX_RETRIES: '0' }).llm,
      log,
      () => now,
      OUTBOUND,
    );
    await assert.rejects(llm.chat(req()), (e: Error & { code?: string }) => e.code === 'llm_unavailable');
    assert.deepEqual(
      log.got.map((g) => g.reason),
      ['unreachable'],
    );
  });

  it('refuses output cut at the token limit, output that is not JSON, and JSON of another shape', async () => {
    server.play(
      { content: '{"ok": tr', finish: 'length' },
      { content: 'Sure! Here is the JSON you asked for' },
      { json: { ok: 'yes' } },
    );
    for (const why of [/cut off/, /not JSON/, /does not match the schema: ok/]) {
      await assert.rejects(
        llm.chatJson({ ...req(), jsonSchema: schema }, check),
        (e: Error & { code?: string }) => e.code === 'llm_invalid_output' && why.test(e.message),
      );
    }
    assert.deepEqual(
      log.got.map((g) => g.reason),
      ['invalid_output', 'invalid_output', 'invalid_output'],
    );
    noSecrets();
  });

  it('opens its breaker after five failures in a row, then tries again a minute later', async () => {
    llm = make({ SVC_LLM_MAX_RETRIES: '0' });
    server.play(...Array.from({ length: 5 }, () => ({ status: 500 })), { json: { ok: true } });
    for (let i = 0; i < 5; i++) await assert.rejects(llm.chat(req()));
    await assert.rejects(llm.chat(req()), /tries it again after/);
    assert.equal(server.received.length, 5, 'the sixth call was never sent');
    assert.equal(log.got.at(-1)!.reason, 'circuit_open');
    now += 61_000;
    assert.deepEqual(await llm.chatJson({ ...req(), jsonSchema: schema }, check), { ok: true });
    noSecrets();
  });

  it('stops for the day once the token budget is spent', async () => {
    llm = make({ SVC_LLM_DAILY_TOKENS: '40' });
    server.play({ json: { ok: true }, tokens: 45 }, { json: { ok: true } });
    await llm.chatJson({ ...req(), jsonSchema: schema }, check);
    await assert.rejects(llm.chat(req()), (e: Error & { code?: string }) => e.code === 'llm_budget_exhausted');
    assert.equal(server.received.length, 1);
    assert.deepEqual(
      log.got.map((g) => g.reason),
      ['budget_exhausted'],
    );
    assert.deepEqual(llm.status().tokensToday, { limit: 40, used: 45 });
    now += 86_400_000;
    assert.deepEqual(await llm.chatJson({ ...req(), jsonSchema: schema }, check), { ok: true });
  });

  it("follows no redirect of the provider's (a 307 is a failed call, its target never asked)", async () => {
    const moved = createHttpServer((_req, res) =>
      res.writeHead(307, { location: `${server.url}/chat/completions` }).end(),
    );
    await new Promise<void>((r) => moved.listen(0, '127.0.0.1', r));
    try {
      llm = new LlmProvider(
        loadConfig({
          SVC_LLM_URL: `http://127.0.0.1:${(moved.address() as { port: number }).port}/v1`,
          SVC_LLM_MAX_RETRIES: '0',
        }).llm,
        log,
        () => now,
        OUTBOUND,
      );
      server.play({ json: { ok: true } });
      await assert.rejects(
        llm.chat(req()),
        (e: Error & { code?: string }) => e.code === 'llm_unavailable' && /307/.test(e.message),
      );
      assert.equal(server.received.length, 0);
      assert.deepEqual(
        log.got.map((g) => [g.reason, g.status]),
        [['refused', 307]],
      );
    } finally {
      moved.close();
    }
  });

  it('is off without SVC_LLM_URL, and says so', async () => {
    const off = new LlmProvider(undefined, log, () => now, OUTBOUND);
    assert.deepEqual(off.status(), { configured: false });
    await assert.rejects(off.chat(req()), (e: Error & { code?: string }) => e.code === 'llm_not_configured');
  });
});
