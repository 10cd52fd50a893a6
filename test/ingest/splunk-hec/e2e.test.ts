import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startE2E, searchEvents, E2E_ENV, type E2E } from '../helpers/e2e.js';

const require = createRequire(import.meta.url);
type Cb = (err: Error | null | undefined, resp: { statusCode: number }, body: unknown) => void;
const { Logger: SplunkLogger } = require('splunk-logging') as {
  Logger: new (cfg: Record<string, unknown>) => { send(c: Record<string, unknown>): void; flush(cb: Cb): void };
};

describe('splunk-logging against a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => e.close());

  it('stores a batch with metadata and times, found by search with its fields', async () => {
    const logger = new SplunkLogger({ token: e.token, url: e.srv.url, maxBatchCount: 0 });
    const t = Date.parse('2026-11-20T08:30:00.250Z');
    logger.send({
      message: 'hec text event',
      metadata: { host: 'hec-host', source: 'app.log', sourcetype: 'app', index: 'hec', time: t },
    });
    logger.send({ message: { action: 'purchase', amount: 12.5 }, metadata: { index: 'hec', time: t + 1000 } });
    const res = await new Promise<{ status: number; body: unknown }>((resolve, reject) =>
      logger.flush((err, r, body) => (err ? reject(err) : resolve({ status: r.statusCode, body }))),
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { text: 'Success', code: 0 });

    const events = await searchEvents(e.srv, e.searchKey, {
      index: 'hec',
      from: '2026-11-20T08:00:00Z',
      to: '2026-11-20T09:00:00Z',
    });
    assert.equal(events.length, 2);
    const text = events.find((x) => x.message === 'hec text event')!;
    assert.equal(text.env, E2E_ENV);
    assert.equal(text.host, 'hec-host');
    assert.equal(text.source, 'app.log');
    assert.equal(text.sourcetype, 'app');
    assert.equal(Date.parse(text.time), t);
    const obj = events.find((x) => x !== text)!;
    assert.equal(Number(obj.fields['message.amount']), 12.5);
    assert.equal(obj.fields['message.action'], 'purchase');
    assert.equal(Date.parse(obj.time), t + 1000);
  });

  it('stores raw lines and answers an unknown token with code 4', async () => {
    const res = await fetch(`${e.srv.url}/services/collector/raw?channel=c1&sourcetype=raw`, {
      method: 'POST',
      headers: { authorization: `Splunk ${e.pinnedToken}` },
      body: 'raw one\nraw two\n',
    });
    assert.equal(res.status, 200);
    const events = await searchEvents(e.srv, e.searchKey, { q: 'raw', index: 'pinned' });
    assert.deepEqual(events.map((x) => x.message).sort(), ['raw one', 'raw two']);
    const bad = await fetch(`${e.srv.url}/services/collector/event`, {
      method: 'POST',
      headers: { authorization: 'Splunk svi_nope' },
      body: '{"event":"x"}',
    });
    assert.equal(bad.status, 403);
    assert.deepEqual(await bad.json(), { text: 'Invalid token', code: 4 });
  });
});
