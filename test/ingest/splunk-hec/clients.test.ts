import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { splunkHecRoutes } from '../../../src/ingest/splunk-hec/route.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const require = createRequire(import.meta.url);

const { Logger: SplunkLogger } = require('splunk-logging') as {
  Logger: new (cfg: Record<string, unknown>) => SplunkLoggerT;
};
interface SplunkLoggerT {
  send(
    ctx: Record<string, unknown>,
    cb?: (err: Error | null | undefined, resp: { statusCode: number }, body: unknown) => void,
  ): void;
  flush(cb?: (err: Error | null | undefined, resp: { statusCode: number }, body: unknown) => void): void;
  error: (err: unknown) => void;
}

function sendAll(
  logger: SplunkLoggerT,
  payloads: Record<string, unknown>[],
): Promise<{ status: number; body: unknown }> {
  for (const p of payloads) logger.send(p);
  return new Promise((resolve, reject) =>
    logger.flush((err, resp, body) => (err ? reject(err) : resolve({ status: resp.statusCode, body }))),
  );
}

describe('Splunk HEC endpoint with splunk-logging', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(splunkHecRoutes);
  });
  after(async () => h.close());

  it('accepts a batch of concatenated events with metadata and string times', async () => {
    h.writer.events.length = 0;
    const logger = new SplunkLogger({ token: 'svi_default', url: h.url, maxBatchCount: 0 });
    const t = Date.parse('2026-11-20T10:00:00.5Z');
    const res = await sendAll(logger, [
      {
        message: 'plain text event',
        metadata: { host: 'web-1', source: 'app.log', sourcetype: 'app', index: 'hec', time: t },
      },
      { message: { temperature: '70F', chickenCount: 500 }, severity: 'warn' },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { text: 'Success', code: 0 });
    const [a, b] = h.writer.events;
    assert.equal(a.index, 'hec');
    assert.equal(a.host, 'web-1');
    assert.equal(a.source, 'app.log');
    assert.equal(a.sourcetype, 'app');
    assert.equal(a.timeUs, t * 1000);
    assert.equal(a.message, 'plain text event');
    assert.equal(a.fields.severity, 'info');
    assert.equal(b.index, 'main');
    assert.equal(b.source, 'http:default-token');
    assert.equal(b.fields['message.chickenCount'], 500);
    assert.equal(b.fields.severity, 'warn');
  });

  it('answers a wrong token with code 4 and a missing one with code 2', async () => {
    const logger = new SplunkLogger({ token: 'svi_wrong', url: h.url, maxBatchCount: 0 });
    logger.error = () => {};
    const res = await sendAll(logger, [{ message: 'x' }]);
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { text: 'Invalid token', code: 4 });
    const none = await fetch(`${h.url}/services/collector/event`, { method: 'POST', body: '{"event":"x"}' });
    assert.equal(none.status, 401);
    assert.deepEqual(await none.json(), { text: 'Token is required', code: 2 });
  });

  it('takes raw lines with the channel from the header and metadata from the query', async () => {
    h.writer.events.length = 0;
    const res = await fetch(`${h.url}/services/collector/raw?index=rawidx&sourcetype=syslog&host=h2`, {
      method: 'POST',
      headers: {
        authorization: 'Splunk svi_default',
        'x-splunk-request-channel': '11111111-2222-3333-4444-555555555555',
      },
      body: 'line one\nline two\n',
    });
    assert.equal(res.status, 200);
    // a channel asks for indexer acknowledgement: the answer carries its ackId (acks.test.ts)
    const body = (await res.json()) as { text: string; code: number; ackId: number };
    assert.deepEqual({ text: body.text, code: body.code }, { text: 'Success', code: 0 });
    assert.ok(Number.isSafeInteger(body.ackId));
    assert.deepEqual(
      h.writer.events.map((e) => [e.message, e.index, e.host, e.fields.channel]),
      [
        ['line one', 'rawidx', 'h2', '11111111-2222-3333-4444-555555555555'],
        ['line two', 'rawidx', 'h2', '11111111-2222-3333-4444-555555555555'],
      ],
    );
  });

  it('answers health, bad bodies, unknown environments and a full queue in HEC shape', async () => {
    const health = await fetch(`${h.url}/services/collector/health`);
    assert.deepEqual(await health.json(), { text: 'HEC is healthy', code: 17 });
    const bad = await fetch(`${h.url}/services/collector`, {
      method: 'POST',
      headers: { authorization: 'Splunk svi_default' },
      body: '{"event":"a"}{"event"',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 });
    const ghost = await fetch(`${h.url}/services/collector`, {
      method: 'POST',
      headers: { authorization: 'Splunk svi_ghost' },
      body: '{"event":"a"}',
    });
    assert.equal(ghost.status, 400);
    assert.equal(((await ghost.json()) as { code: number }).code, 7);
    h.writer.full = true;
    try {
      const busy = await fetch(`${h.url}/services/collector`, {
        method: 'POST',
        headers: { authorization: 'Splunk svi_default' },
        body: '{"event":"a"}',
      });
      assert.equal(busy.status, 429);
      assert.equal(busy.headers.get('retry-after'), '1');
      assert.deepEqual(await busy.json(), { text: 'Server is busy', code: 9 });
    } finally {
      h.writer.full = false;
    }
  });
});
