import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/** Limits at the door on `_bulk` (docs/ingest-limits.md): a bad item fails alone, the rest is stored and found. */
describe('_bulk limits on a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_MAX_EVENT_BYTES: String(16 * 1024), SVC_MAX_EVENT_FIELDS: '20' });
  });
  after(() => e.close());

  const bulk = async (body: string, token = e.token) => {
    const res = await fetch(`${e.srv.url}/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `ApiKey ${token}` },
      body,
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        errors: boolean;
        items: { index: { status: number; _index: string; error?: { type: string; reason: string } } }[];
      },
    };
  };
  const action = (index: string) => JSON.stringify({ index: { _index: index } });

  it('fails the items that are too deep, too wide or badly named, and stores the others', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i])));
    const big = JSON.stringify({ message: `big ${'x'.repeat(40_000)}` });
    const lines = [
      action('lim'),
      '{"message":"first"}',
      action('lim'),
      deep,
      action('lim'),
      wide,
      action('..'),
      '{"message":"dots"}',
      action('a/b'),
      '{"message":"slash"}',
      action('x'.repeat(10_000)),
      '{"message":"long"}',
      action(''),
      '{"message":"empty"}',
      action('lim'),
      big,
      action('lim'),
      '{"message":"last","@timestamp":"9999-12-31T23:59:59.999999Z"}',
    ];
    const r = await bulk(lines.join('\n') + '\n');
    assert.equal(r.status, 200);
    assert.equal(r.body.errors, true);
    assert.deepEqual(
      r.body.items.map((i) => i.index.status),
      [201, 400, 400, 400, 400, 400, 400, 201, 201],
    );
    assert.match(r.body.items[1].index.error!.reason, /nested deeper than 20 levels/);
    assert.match(r.body.items[2].index.error!.reason, /21 fields: the limit is 20/);
    assert.match(r.body.items[3].index.error!.reason, /index: want 1-64 letters.*"\.\."/);
    assert.match(r.body.items[4].index.error!.reason, /"a\/b"/);
    assert.match(r.body.items[5].index.error!.reason, /10000 characters/);
    assert.match(r.body.items[6].index.error!.reason, /got ""\)/);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'lim', from: '2000-01-01T00:00:00Z' });
    assert.deepEqual(found.map((ev) => ev.message.slice(0, 5)).sort(), ['big x', 'first', 'last']);
    const last = found.find((ev) => ev.message === 'last')!;
    assert.equal(last.fields.time_original, '9999-12-31T23:59:59.999999Z');
    const [cut] = await searchEvents(e.srv, e.searchKey, { index: 'lim', q: 'svc_truncated=*' });
    assert.ok(cut.message.startsWith('big x') && Buffer.byteLength(cut.message) <= 16 * 1024);
  });

  it("sends an item to the token's pinned index whatever its _index says", async () => {
    const r = await bulk(`${action('elsewhere')}\n{"message":"pinned wins"}\n`, e.pinnedToken);
    assert.deepEqual(
      r.body.items.map((i) => i.index.status),
      [201],
    );
    const found = await searchEvents(e.srv, e.searchKey, { index: 'pinned', q: '"pinned wins"' });
    assert.equal(found.length, 1);
  });
});
