import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { Client as Client9 } from '@elastic/elasticsearch';
import { Client as Client8 } from 'es8';
import { elasticsearchRoutes } from '../../../src/ingest/elasticsearch/route.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** The calls used here are the same in both majors; typed as the 8.x client. */
type AnyClient = Client8;
const CLIENTS: [string, (node: string, auth: Record<string, string>) => AnyClient][] = [
  ['8.19', (node, auth) => new Client8({ node, auth: auth as never })],
  ['9.4', (node, auth) => new Client9({ node, auth: auth as never }) as unknown as Client8],
];

describe('Elasticsearch endpoint with the official clients', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(elasticsearchRoutes);
  });
  after(async () => h.close());

  for (const [version, make] of CLIENTS) {
    describe(`@elastic/elasticsearch ${version}`, () => {
      it('reads cluster info with an 8.x version', async () => {
        const c = make(h.url, { apiKey: 'svi_default' });
        const info = await c.info();
        assert.match(info.version.number, /^8\./);
        await c.close();
      });

      it('bulk-indexes documents and answers per item in order', async () => {
        h.writer.events.length = 0;
        const c = make(h.url, { apiKey: 'svi_default' });
        const res = await c.bulk({
          operations: [
            { index: { _index: 'web' } },
            { '@timestamp': '2026-11-20T10:00:00.123Z', message: `hello from ${version}`, user: { id: 7 } },
            { delete: { _index: 'web', _id: 'x' } },
            { create: { _index: 'app' } },
            { message: 'second', host: { name: 'h1' } },
          ],
        });
        assert.equal(res.errors, true);
        assert.deepEqual(
          res.items.map((i) => Object.values(i)[0].status),
          [201, 400, 201],
        );
        assert.equal(h.writer.events.length, 2);
        const [a, b] = h.writer.events;
        assert.equal(a.index, 'web');
        assert.equal(a.env, 'default');
        assert.equal(a.timeUs, Date.parse('2026-11-20T10:00:00.123Z') * 1000);
        assert.equal(a.message, `hello from ${version}`);
        assert.equal(a.fields['user.id'], 7);
        assert.equal(b.index, 'app');
        assert.equal(b.host, 'h1');
        await c.close();
      });

      it('ingests through helpers.bulk with basic auth (token as password)', async () => {
        h.writer.events.length = 0;
        const c = make(h.url, { username: 'svc', password: 'svi_default' });
        const docs = Array.from({ length: 250 }, (_, i) => ({ message: `doc ${i}`, n: i }));
        const stats = await c.helpers.bulk({
          datasource: docs,
          onDocument: () => ({ index: { _index: 'helper' } }),
          flushBytes: 2000,
        });
        assert.equal(stats.successful, 250);
        assert.equal(stats.failed, 0);
        assert.deepEqual(
          h.writer.events.map((e) => e.fields.n).sort((x, y) => Number(x) - Number(y)),
          docs.map((d) => d.n),
        );
        await c.close();
      });

      it('answers a wrong token with a 401 security_exception', async () => {
        const c = make(h.url, { apiKey: 'svi_wrong' });
        await assert.rejects(
          c.bulk({ operations: [{ index: { _index: 'a' } }, { m: 1 }] }),
          (e: { meta?: { statusCode?: number; body?: { error?: { type?: string } } } }) => {
            assert.equal(e.meta?.statusCode, 401);
            assert.equal(e.meta?.body?.error?.type, 'security_exception');
            return true;
          },
        );
        await c.close();
      });
    });
  }

  it('serves the same API under /api/es for a client whose node URL has that path', async () => {
    h.writer.events.length = 0;
    const c = new Client8({ node: `${h.url}/api/es`, auth: { apiKey: 'svi_default' } });
    assert.match((await c.info()).version.number, /^8\./);
    const res = await c.bulk({ operations: [{ index: { _index: 'prefixed' } }, { message: 'via /api/es' }] });
    assert.equal(res.errors, false);
    assert.equal(h.writer.events[0].index, 'prefixed');
    await c.close();
  });

  it('accepts gzip NDJSON as application/json with the header on every answer', async () => {
    h.writer.events.length = 0;
    const body = gzipSync('{"index":{"_index":"z","_type":"_doc"}}\n{"message":"zipped"}\n');
    const res = await fetch(`${h.url}/api/es/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: 'ApiKey svi_default' },
      body,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-elastic-product'), 'Elasticsearch');
    assert.equal(h.writer.events[0].message, 'zipped');
  });

  it('uses the path index and refuses a malformed action line with 400', async () => {
    const res = await fetch(`${h.url}/logs/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer svi_default' },
      body: '{"index":\n',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { type: string }; status: number };
    assert.equal(body.status, 400);
  });

  it("lets the pinned index win over an item's _index, and reports an unknown environment for the request", async () => {
    const seen = h.writer.events.length;
    const pinned = await fetch(`${h.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: 'ApiKey svi_pinned' },
      body: '{"index":{"_index":"other"}}\n{"m":1}\n{"index":{}}\n{"m":2}\n',
    });
    const pb = (await pinned.json()) as { items: { index: { status: number } }[] };
    assert.deepEqual(
      pb.items.map((i) => i.index.status),
      [201, 201],
    );
    assert.deepEqual(
      h.writer.events.slice(seen).map((e) => e.index),
      ['web', 'web'],
    );
    const ghost = await fetch(`${h.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: 'ApiKey svi_ghost' },
      body: '{"index":{}}\n{"m":1}\n',
    });
    assert.equal(ghost.status, 400);
    const gb = (await ghost.json()) as { error: { type: string; reason: string } };
    assert.equal(gb.error.type, 'index_not_found_exception');
    assert.match(gb.error.reason, /unknown environment/);
  });

  it('turns a full queue into retryable 429 items with Retry-After', async () => {
    h.writer.full = true;
    try {
      const res = await fetch(`${h.url}/_bulk`, {
        method: 'POST',
        headers: { authorization: 'ApiKey svi_default' },
        body: '{"index":{}}\n{"m":1}\n',
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('retry-after'), '1');
      const body = (await res.json()) as {
        errors: boolean;
        items: { index: { status: number; error: { type: string } } }[];
      };
      assert.equal(body.errors, true);
      assert.equal(body.items[0].index.status, 429);
      assert.equal(body.items[0].index.error.type, 'es_rejected_execution_exception');
    } finally {
      h.writer.full = false;
    }
  });

  it('answers the setup probes shippers make', async () => {
    for (const path of ['/_license', '/_cluster/health', '/_index_template/filebeat', '/_ilm/policy/x']) {
      const res = await fetch(`${h.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('x-elastic-product'), 'Elasticsearch');
    }
    const head = await fetch(`${h.url}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  it("answers _cat/health as Elasticsearch does: rsyslog's probe (text) and the official client (JSON)", async () => {
    const text = await fetch(`${h.url}/_cat/health`);
    assert.equal(text.status, 200);
    assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await text.text(), /^\d+ \d\d:\d\d:\d\d svc green 1 1 /);
    const c = new Client9({ node: h.url, auth: { apiKey: 'svi_default' } });
    const rows = (await c.cat.health({ format: 'json' })) as unknown as { status: string; cluster: string }[];
    assert.deepEqual([rows.length, rows[0].status, rows[0].cluster], [1, 'green', 'svc']);
  });
});
