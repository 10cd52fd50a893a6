import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken } from '../helpers/auth.js';
import { sample, scrape } from '../helpers/metrics.js';

/** A Loki JSON push of `lines`, stamped now. */
function lokiBody(lines: string[]): string {
  const ns = `${Date.now()}000000`;
  return JSON.stringify({ streams: [{ stream: { job: 'metrics-test' }, values: lines.map((l) => [ns, l]) }] });
}

async function post(url: string, token: string, body: string, type = 'application/json'): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body,
  });
  await res.arrayBuffer();
  return res;
}

describe('GET /metrics counts what svc was sent', () => {
  let srv: TestServer;
  let token: string;
  before(async () => {
    srv = await startTestServer({ SVC_METRICS_LISTEN: '127.0.0.1:0', SVC_MAX_EVENT_FIELDS: '5' });
    token = await createIngestToken(srv, { env: 'default' });
  });
  after(() => srv.close());

  it('counts events and body bytes per protocol and env, and the lines refused one by one', async () => {
    const native = ['{"a":1}', '{"b":2}', '{"c":3}', '{"f1":1,"f2":2,"f3":3,"f4":4,"f5":5,"f6":6,"f7":7}'].join('\n');
    const r1 = await post(`${srv.url}/api/ingest`, token, native, 'application/x-ndjson');
    assert.equal(r1.status, 200);
    const loki = lokiBody(['one', 'two']);
    assert.equal((await post(`${srv.url}/loki/api/v1/push`, token, loki)).status, 204);
    const text = await scrape(srv);
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'native', env: 'default' }), 3);
    assert.equal(
      sample(text, 'svc_ingest_bytes_total', { protocol: 'native', env: 'default' }),
      Buffer.byteLength(native),
    );
    assert.equal(sample(text, 'svc_ingest_rejected_lines_total', { protocol: 'native' }), 1);
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'loki', env: 'default' }), 2);
    assert.equal(sample(text, 'svc_ingest_bytes_total', { protocol: 'loki', env: 'default' }), Buffer.byteLength(loki));
  });

  it('counts refused requests by protocol and error code', async () => {
    assert.equal((await post(`${srv.url}/loki/api/v1/push`, 'svi_wrong', lokiBody(['x']))).status, 401);
    assert.equal((await post(`${srv.url}/loki/api/v1/push`, token, '{"streams":')).status, 400);
    const text = await scrape(srv);
    assert.equal(
      sample(text, 'svc_ingest_failed_requests_total', { protocol: 'loki', code: 'invalid_credentials' }),
      1,
    );
    assert.equal(sample(text, 'svc_ingest_failed_requests_total', { protocol: 'loki', code: 'invalid_json' }), 1);
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'loki', env: 'default' }), 2);
  });

  it('counts searches by kind and outcome, seals, and blocks per env', async () => {
    const admin = await adminToken(srv);
    const search = (q: string) =>
      fetch(`${srv.url}/api/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q, env: 'default', from: '-1h' }),
      }).then((r) => r.status);
    assert.equal(await search('*'), 200);
    assert.equal(await search('* | nosuchpipe'), 400);
    await srv.deps.storage.flush();
    const text = await scrape(srv);
    assert.equal(sample(text, 'svc_searches_total', { kind: 'search', outcome: 'ok' }), 1);
    assert.equal(sample(text, 'svc_searches_total', { kind: 'search', outcome: 'error' }), 1);
    assert.equal(sample(text, 'svc_search_duration_seconds_count', { kind: 'search' }), 2);
    assert.ok(sample(text, 'svc_storage_seals_total', { outcome: 'ok' }) >= 1, 'a seal was counted');
    assert.ok(sample(text, 'svc_storage_blocks', { env: 'default' }) >= 1, 'the sealed block is on disk');
    assert.ok(sample(text, 'svc_storage_block_bytes', { env: 'default' }) > 0);
    assert.equal(sample(text, 'svc_writer_queue_capacity_events'), 100_000);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.match(text, /^nodejs_heap_size_used_bytes \d+/m);
  });

  it('counts monitor runs by trigger and outcome, and a failed login nowhere but where it belongs', async () => {
    const admin = await adminToken(srv);
    const body = { name: 'm', query: 'error', env: 'default', every: '5m', condition: { threshold: 'count > 0' } };
    const m = (await call(srv, 'POST', '/api/monitors', { token: admin, body, expect: 201 })) as { id: string };
    await call(srv, 'POST', `/api/monitors/${m.id}/run`, { token: admin, expect: 200 });
    const text = await scrape(srv);
    assert.equal(sample(text, 'svc_monitor_runs_total', { trigger: 'manual', outcome: 'ok' }), 1);
    // the monitor's search went through the one search service too
    assert.ok(sample(text, 'svc_searches_total', { kind: 'search', outcome: 'ok' }) >= 2);
  });

  it('is served on its own listener only: the main one has no /metrics, the metrics one nothing else', async () => {
    assert.equal((await fetch(`${srv.url}/metrics`)).status, 404);
    const other = await fetch(`${srv.metricsUrl}/api/version`);
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as { error: { code: string } }).error.code, 'not_found');
    const res = await fetch(`${srv.metricsUrl}/metrics`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  });
});

describe('GET /metrics of a node on a shared store', () => {
  let srv: TestServer;
  let store: string;
  before(async () => {
    store = mkdtempSync(join(tmpdir(), 'svc-metrics-store-'));
    srv = await startTestServer({ SVC_METRICS_LISTEN: '127.0.0.1:0', SVC_STORE: store });
  });
  after(async () => {
    await srv.close();
    rmSync(store, { recursive: true, force: true });
  });

  it("shows the store's sync lag, unpublished blocks and the cache's counts", async () => {
    await srv.deps.storage.flush();
    const text = await scrape(srv);
    assert.match(text, /^svc_store_sync_lag_seconds \d/m);
    assert.equal(sample(text, 'svc_store_unpublished_blocks'), 0);
    assert.match(text, /^svc_store_cache_hits_total 0$/m);
    assert.match(text, /^svc_store_cache_misses_total 0$/m);
  });
});

describe('GET /metrics counts the answers that tell a shipper to retry later', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({
      SVC_METRICS_LISTEN: '127.0.0.1:0',
      SVC_TEST_HOLD_WRITER: '1',
      SVC_BLOCK_QUEUE_CAP: '50',
    });
  });
  after(() => srv.close());

  it('counts a 429 from Loki and a bulk whose items were refused, and the events of the push that waited', async () => {
    const token = await createIngestToken(srv, { env: 'default' });
    // the held writer keeps this push queued (behind svc's own records of its start): the queue is
    // full until it is released
    const lines = Array.from({ length: 50 - srv.deps.writer.queueDepth().queued }, (_, i) => `line ${i}`);
    const first = post(`${srv.url}/loki/api/v1/push`, token, lokiBody(lines));
    while (srv.deps.writer.queueDepth().queued < 50) await new Promise((r) => setTimeout(r, 10));
    assert.equal(sample(await scrape(srv), 'svc_writer_queue_events'), 50);
    const busy = await post(`${srv.url}/loki/api/v1/push`, token, lokiBody(['d']));
    assert.equal(busy.status, 429);
    const bulk = '{"index":{}}\n{"message":"e"}\n';
    const es = await fetch(`${srv.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${token}`, 'content-type': 'application/x-ndjson' },
      body: bulk,
    });
    assert.equal(((await es.json()) as { errors: boolean }).errors, true);
    srv.deps.storage.releaseWriter();
    assert.equal((await first).status, 204);
    const text = await scrape(srv);
    assert.equal(sample(text, 'svc_ingest_throttled_total', { protocol: 'loki' }), 1);
    assert.equal(sample(text, 'svc_ingest_failed_requests_total', { protocol: 'loki', code: 'queue_full' }), 1);
    assert.equal(sample(text, 'svc_ingest_throttled_total', { protocol: 'elasticsearch' }), 1);
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'loki', env: 'default' }), lines.length);
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'elasticsearch', env: 'default' }), 0);
  });
});
