import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/** Limits at the door on the Loki push (docs/ingest-limits.md): valid entries stored, refused ones named in a 400. */
describe('Loki push limits on a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_MAX_EVENT_FIELDS: '3' });
  });
  after(() => e.close());

  const push = async (doc: unknown) => {
    const res = await fetch(`${e.srv.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${e.token}` },
      body: typeof doc === 'string' ? doc : JSON.stringify(doc),
    });
    return { status: res.status, text: await res.text() };
  };
  const ns = (ms: number) => `${ms}000000`;

  it('stores the valid entries and answers 400 naming the refused one', async () => {
    const now = Date.now();
    const r = await push({
      streams: [
        {
          stream: { job: 'a', index: 'lokil' },
          values: [
            [ns(now), 'kept one'],
            [ns(now), 'too wide', { m1: '1', m2: '2', m3: '3' }],
            [ns(now), 'kept two'],
          ],
        },
      ],
    });
    assert.equal(r.status, 400);
    assert.match(
      r.text,
      /1 of 3 entries refused.*stream \{job="a", index="lokil"\}: entry 1: cannot store an event with 4 fields: the limit is 3/,
    );
    const found = await searchEvents(e.srv, e.searchKey, { index: 'lokil' });
    assert.deepEqual(found.map((ev) => ev.message).sort(), ['kept one', 'kept two']);
  });

  it('takes the arrival time for int64-max nanoseconds, keeping the original', async () => {
    const r = await push({
      streams: [{ stream: { index: 'lokit' }, values: [['9223372036854775807', 'far future']] }],
    });
    assert.equal(r.status, 204);
    const [ev] = await searchEvents(e.srv, e.searchKey, { index: 'lokit' });
    assert.equal(ev.fields.time_original, '9223372036854775807');
    assert.ok(Math.abs(Date.parse(ev.time) - Date.now()) < 60_000);
  });

  it('answers 400, never 500, for label values that are not strings', async () => {
    const r = await push({ streams: [{ stream: { app: { toString: 1 } }, values: [[ns(Date.now()), 'odd']] }] });
    assert.equal(r.status, 204);
    const deep = await push(
      `{"streams":[{"stream":{"app":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}},"values":[["${ns(Date.now())}","odd"]]}]}`,
    );
    assert.equal(deep.status, 400);
    assert.match(deep.text, /nested deeper than 20 levels/);
    const deepTime = await push(
      `{"streams":[{"stream":{},"values":[[${'['.repeat(10_000)}${']'.repeat(10_000)},"x"]]}]}`,
    );
    assert.equal(deepTime.status, 400);
    assert.match(deepTime.text, /cannot parse timestamp of type array of values\[0\]/);
  });

  it('refuses the push when the index label breaks the name rule', async () => {
    for (const index of ['..', 'a/b', 'prod\n']) {
      const r = await push({ streams: [{ stream: { index }, values: [[ns(Date.now()), 'x']] }] });
      assert.equal(r.status, 400);
      assert.match(r.text, /index: want 1-64 letters/);
    }
  });
});
