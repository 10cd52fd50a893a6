import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/** Limits at the door on HEC (docs/ingest-limits.md), answered as Splunk answers a bad event. */
describe('HEC limits on a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_MAX_EVENT_BYTES: String(16 * 1024) });
  });
  after(() => e.close());

  const hec = async (body: string, path = '/services/collector/event') => {
    const res = await fetch(`${e.srv.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Splunk ${e.token}` },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses an event nested 10,000 deep with code 6 naming the event, never a 500', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const r = await hec(`{"event":"ok","index":"hecl"}{"event":${deep},"index":"hecl"}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 6);
    assert.equal(r.body['invalid-event-number'], 1);
    assert.match(String(r.body.reason), /nested deeper than 20 levels/);
  });

  it('refuses an index name the name rule refuses with code 7', async () => {
    for (const index of ['..', 'a/b', 'prod\n', ' web', 'x'.repeat(10_000)]) {
      const r = await hec(JSON.stringify({ event: 'x', index }));
      assert.equal(r.status, 400, index);
      assert.equal(r.body.code, 7);
      assert.match(String(r.body.reason), /index: want 1-64 letters/);
    }
  });

  it('stores an event cut to size with svc_truncated and a far-future time at arrival', async () => {
    const r = await hec(
      JSON.stringify({ event: `long ${'y'.repeat(40_000)}`, index: 'hecl' }) +
        JSON.stringify({ event: 'future', time: 1e308, index: 'hecl' }) +
        JSON.stringify({ event: 'year0', time: '-62167219200', index: 'hecl' }),
    );
    assert.deepEqual(r.body, { text: 'Success', code: 0 });
    const found = await searchEvents(e.srv, e.searchKey, { index: 'hecl' });
    assert.equal(found.length, 3);
    assert.equal(found.find((ev) => ev.message === 'year0')!.fields.time_original, '-62167219200');
    const cut = found.find((ev) => ev.message.startsWith('long'))!;
    assert.ok(Number(cut.fields.svc_truncated) > 40_000);
    assert.match(String(found.find((ev) => ev.message === 'future')!.fields.time_original), /^1e\+?308$/);
  });
});
