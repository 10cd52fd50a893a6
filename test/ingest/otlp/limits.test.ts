import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/** Limits at the door on OTLP/HTTP (docs/ingest-limits.md): refused records in partialSuccess, wrong shapes 400. */
describe('OTLP limits on a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(() => e.close());

  const post = async (body: unknown) => {
    const res = await fetch(`${e.srv.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${e.token}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const record = (text: string, over: Record<string, unknown> = {}, index = 'otlpl') => ({
    body: { stringValue: text },
    attributes: [{ key: 'svc.index', value: { stringValue: index } }],
    ...over,
  });

  it('answers 400 naming the place for wrong shapes, never 500', async () => {
    for (const doc of [
      { resourceLogs: 'x' },
      { resourceLogs: [1] },
      { resourceLogs: [{ scopeLogs: {} }] },
      { resourceLogs: [{ scopeLogs: [{ logRecords: 'r' }] }] },
      { resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: 5 }] }] }] },
      { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { kvlistValue: { values: 'v' } } }] }] }] },
    ]) {
      const r = await post(doc);
      assert.equal(r.status, 400, JSON.stringify(doc));
      assert.match(String(r.body.message), /(resourceLogs|AnyValue).*want an (array|object)/);
    }
  });

  it('ignores ids, flags and names of the wrong type', async () => {
    const r = await post({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                record('odd', { traceId: 5, spanId: {}, flags: 'x', eventName: {}, severityText: [] }, 'otlpodd'),
              ],
            },
          ],
        },
      ],
    });
    assert.equal(r.status, 200);
    const [ev] = await searchEvents(e.srv, e.searchKey, { index: 'otlpodd', q: 'odd' });
    assert.equal(ev.fields.trace_id, undefined);
    assert.equal(ev.fields['event.name'], undefined);
  });

  it('rejects deep records and far-future times in their own way, storing the rest', async () => {
    let deep: Record<string, unknown> = { stringValue: 'bottom' };
    for (let i = 0; i < 500; i++) deep = { kvlistValue: { values: [{ key: 'a', value: deep }] } };
    const r = await post({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                record('fine'),
                record('deep', { body: deep }),
                record('future', { timeUnixNano: '1' + '0'.repeat(40) }),
              ],
            },
          ],
        },
      ],
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      partialSuccess: { rejectedLogRecords: '1', errorMessage: 'cannot store an event nested deeper than 20 levels' },
    });
    const found = await searchEvents(e.srv, e.searchKey, { index: 'otlpl' });
    assert.deepEqual(found.map((ev) => ev.message).sort(), ['fine', 'future']);
    assert.equal(found.find((ev) => ev.message === 'future')!.fields.time_original, '1' + '0'.repeat(40));
  });
});
