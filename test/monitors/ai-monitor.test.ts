import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken } from '../helpers/auth.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { ScriptedProvider } from '../fixtures/llm/scripted-provider.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * AI monitors end to end: svc with SVC_LLM_URL pointing at a scripted OpenAI-compatible server,
 * real ingested events, a real webhook receiver. What reaches the provider (the condition, the
 * rows, redacted fields left out), what a judgement does to the state, and that a failing or
 * babbling provider makes a failed run, recorded, never a crash or a silent "not triggered".
 */

interface Outcome {
  outcome: string;
  firing?: string[];
  ai?: { severity: string; summary: string; evidence: string[] };
  notifications?: { state: string }[];
  error?: { code: string; message: string };
}

describe('AI monitors', () => {
  const llm = new ScriptedProvider();
  let srv: TestServer;
  let admin: string;
  const hook = new WebhookReceiver();
  let hookUrl = '';
  const posted = () => hook.peek('/ai');
  let id = '';

  before(async () => {
    await llm.start();
    await hook.start();
    hookUrl = `${hook.url}/ai`;
    srv = await startTestServer({
      SVC_LLM_URL: llm.url,
      SVC_LLM_MODEL: 'judge',
      SVC_LLM_API_KEY: 'sk-ai-test',
      SVC_LLM_MAX_RETRIES: '0',
      SVC_LLM_REDACT_FIELDS: 'user, card',
      SVC_MONITOR_WEBHOOK_BACKOFF_MS: '10',
      SVC_OUTBOUND_ALLOW: '127.0.0.1',
    });
    admin = await adminToken(srv);
    const token = await createIngestToken(srv, { env: 'default' });
    const now = Date.now();
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        time: new Date(now - 60_000 + i * 1000).toISOString(),
        host: 'web-1',
        message: `login failed for root from 10.0.0.${i}`,
        user: `secret-user-${i}`,
        card: '4111111111111111',
      }),
    );
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await srv?.close();
    await llm.close();
    await hook.close();
  });

  const run = () => call(srv, 'POST', `/api/monitors/${id}/run`, { token: admin, expect: 200 }) as Promise<Outcome>;

  it('says the LLM is on, and takes an AI condition', async () => {
    const status = (await call(srv, 'GET', '/api/llm', { token: admin })) as { configured: boolean; model: string };
    assert.deepEqual([status.configured, status.model], [true, 'judge']);
    const m = (await call(srv, 'POST', '/api/monitors', {
      token: admin,
      body: {
        name: 'brute force',
        query: '"login failed"',
        env: 'default',
        every: '5m',
        window: '10m',
        condition: { ai: 'Someone is guessing passwords for root', maxRows: 5 },
        destinations: [{ webhook: hookUrl }],
      },
      expect: 201,
    })) as { id: string; condition: unknown };
    id = m.id;
    assert.deepEqual(m.condition, { ai: 'Someone is guessing passwords for root', maxRows: 5 });
  });

  it('sends the condition and at most maxRows rows, redacted, and fires on the judgement', async () => {
    llm.play({
      json: {
        triggered: true,
        severity: 'high',
        summary: '12 failed root logins from 12 addresses in a minute',
        evidence: ['login failed for root from 10.0.0.3'],
      },
    });
    const r = await run();
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.firing, ['*']);
    assert.equal(r.ai!.severity, 'high');
    const sent = llm.received.at(-1)!.body;
    assert.equal((sent.response_format as { type: string }).type, 'json_schema');
    const user = sent.messages.find((x) => x.role === 'user')!.content;
    assert.match(user, /Condition: Someone is guessing passwords for root/);
    assert.match(user, /Rows: 5 of 12/);
    assert.equal(user.split('\n').filter((l) => l.startsWith('{')).length, 5);
    assert.doesNotMatch(user, /secret-user|4111111111111111/);
    assert.match(user, /"user":"\[redacted\]"/);
    const note = posted().at(-1)!;
    assert.deepEqual(
      [note.state, note.severity, note.evidence],
      ['firing', 'high', ['login failed for root from 10.0.0.3']],
    );
    assert.match(String(note.summary), /brute force \[high\]: 12 failed root logins/);
  });

  it('fails the run on a provider error or an unusable answer, keeps the state, and records why', async () => {
    for (const [step, code] of [
      [{ status: 500 }, 'llm_unavailable'],
      [{ content: 'I think it is fine.' }, 'llm_invalid_output'],
      [{ json: { triggered: 'maybe', severity: 'high', summary: 'x', evidence: [] } }, 'llm_invalid_output'],
      [{ content: '{"triggered": true, "sev', finish: 'length' }, 'llm_invalid_output'],
    ] as const) {
      llm.play(step);
      const r = await run();
      assert.equal(r.outcome, 'error');
      assert.equal(r.error!.code, code);
    }
    const got = (await call(srv, 'GET', `/api/monitors/${id}`, { token: admin })) as {
      state: string;
      firing: unknown[];
    };
    assert.equal(got.state, 'error');
    assert.equal(got.firing.length, 1, 'still firing: a failed run is not "not triggered"');
    const recs = await searchSelfLog(srv, 'event=llm_error', '_svclogs');
    assert.deepEqual(recs.events.map((e) => e.fields.reason).sort(), [
      'invalid_output',
      'invalid_output',
      'invalid_output',
      'server_error',
    ]);
    assert.doesNotMatch(JSON.stringify(recs.events), /sk-ai-test|secret-user|login failed/);
    const runs = await searchSelfLog(srv, `event=monitor_run monitor_id=${id} outcome=error`, '_svclogs');
    assert.equal(runs.events.length, 4);
  });

  it('resolves when the judgement says it no longer holds', async () => {
    llm.play({ json: { triggered: false, severity: 'info', summary: 'quiet', evidence: [] } });
    const r = await run();
    assert.deepEqual(r.firing, []);
    assert.deepEqual(
      r.notifications!.map((n) => n.state),
      ['resolved'],
    );
    assert.equal(posted().at(-1)!.state, 'resolved');
  });
});
