import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startE2E, searchEvents, type E2E } from '../helpers/e2e.js';
import { AckChannels } from '../../../src/ingest/splunk-hec/acks.js';

/**
 * HEC indexer acknowledgement as Kinesis Firehose and NiFi's PutSplunkHTTP/QuerySplunkIndexingStatus
 * use it (no npm client speaks it, so these are the requests those shippers send): a channel in
 * `X-Splunk-Request-Channel`, an `ackId` per answer, `POST /services/collector/ack`.
 */
describe('HEC indexer acknowledgement against a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => e.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${e.srv.url}${path}`, { method: 'POST', headers: { authorization: `Splunk ${e.token}`, ...headers }, body });

  it('answers an ackId per request of a channel, each already acknowledged, and the events are searchable', async () => {
    const channel = randomUUID();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post('/services/collector/event?index=acked', JSON.stringify({ event: `acked event ${i}` }), {
        'x-splunk-request-channel': channel,
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { text: string; code: number; ackId: number };
      assert.equal(body.text, 'Success');
      assert.equal(body.code, 0);
      ids.push(body.ackId);
    }
    assert.deepEqual(ids, [ids[0], ids[0] + 1, ids[0] + 2], 'ids rise by one per request on a channel');
    const raw = await post(`/services/collector/raw?channel=${channel}&index=acked`, 'acked raw line');
    ids.push(((await raw.json()) as { ackId: number }).ackId);
    assert.equal(ids[3], ids[2] + 1, 'the raw endpoint shares the channel');

    const status = await post('/services/collector/ack', JSON.stringify({ acks: [...ids, ids[3] + 1] }), {
      'x-splunk-request-channel': channel,
    });
    assert.equal(status.status, 200);
    const want = Object.fromEntries([...ids.map((id) => [String(id), true]), [String(ids[3] + 1), false]]);
    assert.deepEqual(await status.json(), { acks: want });
    const events = await searchEvents(e.srv, e.searchKey, { q: 'acked', index: 'acked' });
    assert.equal(events.length, 4);
  });

  it('answers without ackId when no channel is named, and refuses an ack query without one (code 10)', async () => {
    const res = await post('/services/collector/event', '{"event":"no channel"}');
    assert.deepEqual(await res.json(), { text: 'Success', code: 0 });
    const q = await post('/services/collector/ack', '{"acks":[0]}');
    assert.equal(q.status, 400);
    assert.deepEqual(await q.json(), { text: 'Data channel is missing', code: 10 });
  });

  it('refuses a malformed channel (code 11), a malformed ack query (code 6) and a bad token (code 4)', async () => {
    const bad = await post('/services/collector/event', '{"event":"x"}', {
      'x-splunk-request-channel': 'not a channel!',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { text: 'Invalid data channel', code: 11 });
    for (const body of ['{"acks":"all"}', '{"acks":[-1]}', 'nope']) {
      const r = await post('/services/collector/ack?channel=c1', body);
      assert.equal(r.status, 400, body);
      assert.equal(((await r.json()) as { code: number }).code, 6);
    }
    const r = await fetch(`${e.srv.url}/services/collector/ack?channel=c1`, {
      method: 'POST',
      headers: { authorization: 'Splunk svi_nope' },
      body: '{"acks":[1]}',
    });
    assert.equal(r.status, 403);
  });
});

describe('ack channels', () => {
  it('answers true for ids handed out before a restart (below the new base) and false for ids not yet handed out', () => {
    const before = new AckChannels(1000);
    const old = [before.issue('c'), before.issue('c')];
    const after = new AckChannels(5000); // a later start
    const fresh = after.issue('c');
    assert.deepEqual(after.status('c', [...old, fresh, fresh + 1]), {
      1000: true,
      1001: true,
      5000: true,
      5001: false,
    });
    assert.deepEqual(after.status('unknown', [4999, 5000]), { 4999: true, 5000: false });
  });

  it('forgets the least recently used channel past its bound', () => {
    const a = new AckChannels(0, 2);
    a.issue('x');
    a.issue('y');
    a.issue('x'); // y is now the least recently used
    a.issue('z');
    assert.deepEqual(a.status('y', [0]), { 0: false }, 'y was forgotten: its next id starts again at the base');
    assert.deepEqual(a.status('x', [1]), { 1: true });
  });
});
