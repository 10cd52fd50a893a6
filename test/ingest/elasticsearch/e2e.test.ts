import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as Client9 } from '@elastic/elasticsearch';
import { Client as Client8 } from 'es8';
import { startE2E, searchEvents, E2E_ENV, type E2E } from '../helpers/e2e.js';

describe('Elasticsearch clients against a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => e.close());

  for (const [version, Client] of [
    ['8.19', Client8],
    ['9.4', Client9],
  ] as const) {
    it(`stores what @elastic/elasticsearch ${version} sends through bulk and helpers.bulk, found by search`, async () => {
      const c = new (Client as typeof Client8)({ node: e.srv.url, auth: { apiKey: e.token } });
      const info = await c.info();
      assert.match(info.version.number, /^8\./);
      const tag = `es${version.replace('.', '')}`;
      const res = await c.bulk({
        operations: [
          { index: { _index: `idx-${tag}` } },
          { '@timestamp': '2026-11-20T10:00:00.123Z', message: `bulk ${tag}`, user: { id: 7 }, host: 'web-1' },
        ],
      });
      assert.equal(res.errors, false);
      const docs = Array.from({ length: 100 }, (_, i) => ({
        '@timestamp': new Date(Date.UTC(2026, 10, 21, 0, 0, i)).toISOString(),
        message: `helper ${tag} ${i}`,
        n: i,
      }));
      const stats = await c.helpers.bulk({
        datasource: docs,
        onDocument: () => ({ create: { _index: `helper-${tag}` } }),
      });
      assert.equal(stats.successful, 100);
      await c.close();

      const [one] = await searchEvents(e.srv, e.searchKey, { q: `"bulk ${tag}"`, index: `idx-${tag}` });
      assert.equal(one.env, E2E_ENV);
      assert.equal(one.index, `idx-${tag}`);
      assert.equal(one.host, 'web-1');
      assert.equal(Date.parse(one.time), Date.parse('2026-11-20T10:00:00.123Z'));
      assert.equal(Number(one.fields['user.id']), 7);
      const helped = await searchEvents(e.srv, e.searchKey, {
        index: `helper-${tag}`,
        from: '2026-11-21T00:00:00Z',
        to: '2026-11-21T00:02:00Z',
      });
      assert.equal(helped.length, 100);
      assert.deepEqual(new Set(helped.map((x) => Number(x.fields.n))).size, 100);
    });
  }

  it('keeps a pinned token in its index and answers a wrong token with a security_exception', async () => {
    const res = await fetch(`${e.srv.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${e.pinnedToken}`, 'content-type': 'application/x-ndjson' },
      body: '{"index":{}}\n{"message":"pinned doc"}\n',
    });
    assert.equal(res.status, 200);
    const found = await searchEvents(e.srv, e.searchKey, { q: '"pinned doc"' });
    assert.equal(found[0].index, 'pinned');
    const bad = await fetch(`${e.srv.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: 'ApiKey svi_nope' },
      body: '{"index":{}}\n{"m":1}\n',
    });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { error: { type: string } }).error.type, 'security_exception');
  });
});
