import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import winston from 'winston';
import LokiTransport from 'winston-loki';
import { lokiRoutes } from '../../../src/ingest/loki/route.js';
import { startHarness, type Harness } from '../helpers/harness.js';

async function sendWithWinston(url: string, json: boolean, token: string, lines: string[]): Promise<void> {
  const errors: unknown[] = [];
  const transport = new LokiTransport({
    host: url,
    json,
    basicAuth: `svc:${token}`,
    labels: { app: 'winston-test', index: 'loki' },
    batching: true,
    interval: 0.1,
    gracefulShutdown: false,
    onConnectionError: (e) => errors.push(e),
  });
  const logger = winston.createLogger({ transports: [transport] });
  for (const l of lines) logger.info(l, { user: 'u1' });
  await transport.flush();
  await transport.close();
  logger.close();
  if (errors.length) throw errors[0];
}

describe('Loki endpoint with winston-loki', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(lokiRoutes);
  });
  after(async () => h.close());

  for (const json of [false, true]) {
    it(`receives ${json ? 'JSON' : 'snappy protobuf'} pushes with labels as fields`, async () => {
      h.writer.events.length = 0;
      const before = Date.now() * 1000;
      await sendWithWinston(h.url, json, 'svi_default', ['first line', 'second line']);
      assert.equal(h.writer.events.length, 2);
      const e = h.writer.events[0];
      assert.equal(e.env, 'default');
      assert.equal(e.index, 'loki');
      assert.equal(e.fields.app, 'winston-test');
      assert.equal(e.fields.level, 'info');
      assert.match(e.message, /first line/);
      assert.ok(e.timeUs >= before - 1_000_000 && e.timeUs <= Date.now() * 1000, 'time near now');
    });
  }

  it('answers 204 for gzip JSON and plain-text errors for bad tokens, bodies and a full queue', async () => {
    const body = gzipSync('{"streams":[{"stream":{"a":"b"},"values":[["1763812800000000000","zipped"]]}]}');
    const ok = await fetch(`${h.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: 'Bearer svi_default' },
      body,
    });
    assert.equal(ok.status, 204);
    const denied = await fetch(`${h.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { authorization: 'Bearer svi_nope' },
      body: '{"streams":[]}',
    });
    assert.equal(denied.status, 401);
    assert.match(await denied.text(), /invalid_credentials/);
    const bad = await fetch(`${h.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { authorization: 'Bearer svi_default', 'content-type': 'application/json' },
      body: '{"streams":',
    });
    assert.equal(bad.status, 400);
    h.writer.full = true;
    try {
      const busy = await fetch(`${h.url}/loki/api/v1/push`, {
        method: 'POST',
        headers: { authorization: 'Bearer svi_default', 'content-type': 'application/json' },
        body: '{"streams":[{"stream":{},"values":[["1","x"]]}]}',
      });
      assert.equal(busy.status, 429);
      assert.equal(busy.headers.get('retry-after'), '1');
    } finally {
      h.writer.full = false;
    }
  });
});
