import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { startE2E, searchEvents, type E2E } from '../helpers/e2e.js';
import { otelLogger } from '../otlp/otel.js';

/**
 * A tiny writer queue, held shut: every compatibility endpoint must answer 429 + Retry-After in its
 * own shape, never wait; once the writer is released the retrying clients succeed and every event
 * is stored exactly once.
 */
describe('backpressure on a full writer queue', () => {
  let e: E2E;
  let filler: Promise<Response>;
  const FILL = 20;
  before(async () => {
    e = await startE2E({ SVC_BLOCK_QUEUE_CAP: '5', SVC_TEST_HOLD_WRITER: '1' });
    // native ingest waits for room instead of failing: it fills the held queue and stays pending
    const lines = Array.from({ length: FILL }, (_, i) => JSON.stringify({ message: `filler ${i}` })).join('\n');
    filler = fetch(`${e.srv.url}/api/ingest?index=filler`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/x-ndjson' },
      body: lines,
    });
    // the filler is in the queue (20 > cap 5) or, behind self-log events, waiting for room: either
    // way a write that may not wait is refused from now on; the 429 assertions below check it
    const start = Date.now();
    while (e.srv.deps.writer.queueDepth().queued < 5 && Date.now() - start < 1000)
      await new Promise((r) => setTimeout(r, 10));
  });
  after(async () => {
    e.srv.deps.storage.releaseWriter();
    await e.close();
  });

  it('answers 429 with Retry-After from HEC, Loki and OTLP, and 429 items from /_bulk', async () => {
    const h = (scheme: string) => ({ authorization: `${scheme} ${e.token}` });
    const hec = await fetch(`${e.srv.url}/services/collector/event`, {
      method: 'POST',
      headers: h('Splunk'),
      body: '{"event":"hec during full queue"}',
    });
    assert.equal(hec.status, 429);
    assert.ok(Number(hec.headers.get('retry-after')) >= 1);
    assert.deepEqual(await hec.json(), { text: 'Server is busy', code: 9 });

    const loki = await fetch(`${e.srv.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { ...h('Bearer'), 'content-type': 'application/json' },
      body: JSON.stringify({
        streams: [{ stream: { a: 'b' }, values: [[`${Date.now()}000000`, 'loki during full queue']] }],
      }),
    });
    assert.equal(loki.status, 429);
    assert.ok(Number(loki.headers.get('retry-after')) >= 1);

    const otlp = await fetch(`${e.srv.url}/v1/logs`, {
      method: 'POST',
      headers: { ...h('Bearer'), 'content-type': 'application/json' },
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' } }] }] }] }),
    });
    assert.equal(otlp.status, 429);
    assert.ok(Number(otlp.headers.get('retry-after')) >= 1);
    assert.equal(((await otlp.json()) as { code: number }).code, 8);

    const es = await fetch(`${e.srv.url}/_bulk`, {
      method: 'POST',
      headers: { ...h('ApiKey'), 'content-type': 'application/x-ndjson' },
      body: '{"index":{}}\n{"message":"es during full queue"}\n',
    });
    assert.equal(es.status, 200);
    assert.ok(Number(es.headers.get('retry-after')) >= 1);
    const body = (await es.json()) as { errors: boolean; items: { index: { status: number } }[] };
    assert.equal(body.errors, true);
    assert.equal(body.items[0].index.status, 429);
  });

  it('lets the OTLP exporter and the ES bulk helper retry until room frees, storing each event once', async () => {
    const log = otelLogger('http', `${e.srv.url}/v1/logs`, e.token, { timeoutMillis: 20_000 });
    for (let i = 0; i < 3; i++) log.emit({ body: `otlp retried ${i}` });
    const otlpDone = log.flush();

    const es = new Client({ node: e.srv.url, auth: { apiKey: e.token } });
    const docs = Array.from({ length: 10 }, (_, i) => ({ message: `es retried ${i}` }));
    const esDone = es.helpers.bulk({
      datasource: docs,
      onDocument: () => ({ index: { _index: 'retried' } }),
      retries: 20,
      wait: 200,
    });

    await new Promise((r) => setTimeout(r, 700));
    const busy = await fetch(`${e.srv.url}/services/collector/event`, {
      method: 'POST',
      headers: { authorization: `Splunk ${e.token}` },
      body: '{"event":"hec during full queue"}',
    });
    assert.equal(busy.status, 429, 'queue still full while held');
    e.srv.deps.storage.releaseWriter();

    const stats = await esDone;
    assert.equal(stats.successful, 10);
    assert.equal(stats.failed, 0);
    await otlpDone;
    await log.shutdown();
    await es.close();
    assert.equal((await filler).status, 200);

    const otel = await searchEvents(e.srv, e.searchKey, { q: '"otlp retried"', index: 'otel' });
    assert.deepEqual(otel.map((x) => x.message).sort(), ['otlp retried 0', 'otlp retried 1', 'otlp retried 2']);
    const esStored = await searchEvents(e.srv, e.searchKey, { q: '"es retried"', index: 'retried' });
    assert.equal(esStored.length, 10);
    assert.equal(new Set(esStored.map((x) => x.message)).size, 10);
    const fill = await searchEvents(e.srv, e.searchKey, { q: 'filler', index: 'filler' });
    assert.equal(fill.length, FILL);
    // nothing refused with 429 was stored
    for (const q of ['"hec during full queue"', '"loki during full queue"', '"es during full queue"']) {
      assert.equal((await searchEvents(e.srv, e.searchKey, { q, env: 'shipping' })).length, 0, q);
    }
  });
});
