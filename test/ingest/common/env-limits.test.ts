import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { call, createEnv, createIngestToken } from '../../helpers/auth.js';
import { suiteServer, type TestServer } from '../../helpers/server.js';

/** Per-environment ingest limits (docs/limits.md): 429 with Retry-After over the limit, other envs untouched. */

const ndjson = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ message: `${tag} ${i}` })).join('\n') + '\n';

async function pushNative(srv: TestServer, token: string, body: string): Promise<Response> {
  return fetch(`${srv.url}/api/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body,
  });
}

async function setLimits(srv: TestServer, admin: string, env: string, limits: Record<string, number | null>) {
  return call(srv, 'PATCH', `/api/admin/envs/${env}`, { token: admin, body: limits, expect: 200 });
}

describe('per-environment limits', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('refuses a limit of 0 or less with 400 naming the field, and keeps and removes valid ones', async () => {
    await createEnv(srv, 'lim-valid');
    for (const [field, value] of [
      ['ingestEventsPerSec', -5],
      ['ingestBytesPerSec', 0],
      ['maxSearchesPerUser', 1.5],
    ] as const) {
      const res = await fetch(`${srv.url}/api/admin/envs/lim-valid`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ [field]: value }),
      });
      assert.equal(res.status, 400, field);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, new RegExp(field));
    }
    const created = (await call(srv, 'POST', '/api/admin/envs', {
      token: admin,
      body: { name: 'lim-created', ingestEventsPerSec: 50, maxSearchesPerUser: 2 },
      expect: 201,
    })) as Record<string, unknown>;
    assert.equal(created.ingestEventsPerSec, 50);
    const set = (await setLimits(srv, admin, 'lim-valid', { ingestBytesPerSec: 1000 })) as Record<string, unknown>;
    assert.equal(set.ingestBytesPerSec, 1000);
    const removed = (await setLimits(srv, admin, 'lim-valid', { ingestBytesPerSec: null })) as Record<string, unknown>;
    assert.equal(removed.ingestBytesPerSec, undefined);
  });

  it('answers native ingest over its env limit 429 with Retry-After while another env ingests', async () => {
    await createEnv(srv, 'lim-a');
    await createEnv(srv, 'lim-b');
    await setLimits(srv, admin, 'lim-a', { ingestEventsPerSec: 10 });
    const a = await createIngestToken(srv, { env: 'lim-a' });
    const b = await createIngestToken(srv, { env: 'lim-b' });
    // a bucket holding anything lets one request of any size through; it leaves the env 990 events (99 s) in debt
    assert.equal((await pushNative(srv, a, ndjson(1000, 'first'))).status, 200);
    // the next would wait longer than native ingest's bound (30 s): refused at once
    const over = await pushNative(srv, a, ndjson(5, 'over'));
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 30, `Retry-After ${over.headers.get('retry-after')}`);
    const body = (await over.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'rate_limited');
    assert.match(body.error.message, /environment "lim-a" is over its ingest limit \(10 events\/s/);
    // env B has no limit: untouched by A's
    assert.equal((await pushNative(srv, b, ndjson(2000, 'b'))).status, 200);
  });

  it('makes native ingest wait for its env bucket rather than fail when the wait is short', async () => {
    await createEnv(srv, 'lim-wait');
    await setLimits(srv, admin, 'lim-wait', { ingestEventsPerSec: 200 });
    const t = await createIngestToken(srv, { env: 'lim-wait' });
    assert.equal((await pushNative(srv, t, ndjson(300, 'w1'))).status, 200);
    // the bucket is 100 events in debt: this one waits about half a second, then is stored
    const second = await pushNative(srv, t, ndjson(100, 'w2'));
    assert.equal(second.status, 200);
    assert.equal(((await second.json()) as { ingested: number }).ingested, 100);
  });

  it('lines up concurrent native requests of an env in debt: each waits its turn and is stored, none hears 429', async () => {
    await createEnv(srv, 'lim-line');
    await setLimits(srv, admin, 'lim-line', { ingestEventsPerSec: 400 });
    const t = await createIngestToken(srv, { env: 'lim-line' });
    assert.equal((await pushNative(srv, t, ndjson(800, 'l0'))).status, 200); // 400 events (1 s) in debt
    // five at once: about 1 + 5 × 0.5 s of waiting in all, far under native ingest's 30 s bound
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => pushNative(srv, t, ndjson(200, `l${i}`))));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 200, 200],
    );
    const stored = await Promise.all(answers.map(async (r) => ((await r.json()) as { ingested: number }).ingested));
    assert.deepEqual(stored, [200, 200, 200, 200, 200]);
  });

  it('answers _bulk over the limit with retryable 429 items that the official client retries', async () => {
    await createEnv(srv, 'lim-es');
    await setLimits(srv, admin, 'lim-es', { ingestEventsPerSec: 10 });
    const token = await createIngestToken(srv, { env: 'lim-es' });
    const es = new Client({ node: srv.url, auth: { apiKey: token } });
    try {
      const ops = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => [{ index: { _index: 'es' } }, { message: `${tag} ${i}` }]).flat();
      // 60 events leave the env 5 s in debt
      const first = await es.bulk({ operations: ops(60, 'es first') });
      assert.equal(first.errors, false);
      const refused = await es.bulk({ operations: ops(3, 'es refused') }, { meta: true });
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.equal(refused.body.errors, true);
      const item = refused.body.items[0].index!;
      assert.equal(item.status, 429);
      assert.match(JSON.stringify(item.error), /over its ingest limit/);
      // the bulk helper retries 429 items until the bucket has room again
      const stats = await es.helpers.bulk({
        datasource: Array.from({ length: 5 }, (_, i) => ({ message: `es retried ${i}` })),
        onDocument: () => ({ index: { _index: 'es' } }),
        retries: 40,
        wait: 500,
      });
      assert.equal(stats.successful, 5);
      assert.equal(stats.failed, 0);
    } finally {
      await es.close();
    }
  });

  it('answers Splunk HEC over the bytes limit 429 "Server is busy" with Retry-After', async () => {
    await createEnv(srv, 'lim-hec');
    await setLimits(srv, admin, 'lim-hec', { ingestBytesPerSec: 100 });
    const token = await createIngestToken(srv, { env: 'lim-hec' });
    const hec = (body: string) =>
      fetch(`${srv.url}/services/collector/event`, {
        method: 'POST',
        headers: { authorization: `Splunk ${token}` },
        body,
      });
    const big = JSON.stringify({ event: 'x'.repeat(5000) });
    assert.equal((await hec(big)).status, 200);
    const over = await hec(JSON.stringify({ event: 'small' }));
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.deepEqual(await over.json(), { text: 'Server is busy', code: 9 });
  });
});
