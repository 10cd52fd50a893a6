import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { ManualClock } from '../../src/clock/clock.js';
import { QueryService } from '../../src/query/service.js';
import type { EventStore } from '../../src/storage/types.js';
import { makeEvents, openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';

/**
 * A range that starts relative to now and names no end ends now (Splunk's rule): events stamped in
 * the future are not "the last 8 days". An absolute start without an end stays open. And the
 * zero-result hint never counts a negative number of events outside the range.
 */
const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const DAY_US = 86_400_000_000;

describe('the end of a relative time range', () => {
  let st: TestStorage;
  let svc: QueryService;

  before(async () => {
    st = await openStorage({ clock: new ManualClock(NOW) });
    // 10 events an hour apart ending 2 days ago, and 5 stamped a year ahead
    const past = makeEvents(10, {
      startUs: NOW * 1000 - 2 * DAY_US - 10 * 3_600_000_000,
      stepUs: 3_600_000_000,
      tag: 'past',
    });
    const future = makeEvents(5, { startUs: NOW * 1000 + 365 * DAY_US, tag: 'future' });
    await writeHalfSealed(st.engine, [...past, ...future]);
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
  });
  after(async () => st.close());

  const matched = async (req: { q: string; from?: string; to?: string }) =>
    (await svc.search(SYSTEM_PRINCIPAL, req)).meta.matched;

  it('ends from=-8d without to at now, leaving future-dated events out', async () => {
    assert.equal(await matched({ q: '*', from: '-8d' }), 10);
    assert.equal(await matched({ q: '*', from: '-8d@d' }), 10);
    assert.equal(await matched({ q: '*', from: 'now' }), 0);
  });

  it("ends a query's own relative earliest= without latest= at now", async () => {
    assert.equal(await matched({ q: 'earliest=-8d' }), 10);
    assert.equal(await matched({ q: 'earliest=-8d | stats count' }), 10);
  });

  it('keeps an explicit end and an absolute start as given', async () => {
    assert.equal(await matched({ q: '*', from: '-8d', to: '+400d' }), 15);
    assert.equal(await matched({ q: 'earliest=-8d latest=+400d' }), 15);
    assert.equal(await matched({ q: '*', from: '2026-01-01T00:00:00Z' }), 15);
    assert.equal(await matched({ q: '*' }), 15);
  });

  it('ends the histogram of a relative range at now', async () => {
    const h = await svc.histogram(SYSTEM_PRINCIPAL, { q: '*', from: '-8d', buckets: 8 });
    assert.equal(
      h.buckets.reduce((s, b) => s + b.count, 0),
      10,
    );
    assert.ok(Date.parse(h.buckets[h.buckets.length - 1].time) <= NOW, h.buckets[h.buckets.length - 1].time);
  });

  it('counts the events outside the range in the hint, never below zero while events arrive during the count', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: 'nothing-matches-this', from: '-8d' });
    assert.equal(r.meta.hint?.eventsOutsideRange, 5);
    // the real store with a writer that lands a batch inside the range while the hint counts it
    let landed = false;
    const racing = new Proxy(st.engine, {
      get(target, prop, receiver) {
        if (prop !== 'scan') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<EventStore['scan']>) => {
          // the hint's count: a scan that needs no tokens and no fields
          if (
            !landed &&
            args[0].requiredTokens.length === 0 &&
            Array.isArray(args[0].fields) &&
            args[0].fields.length === 0
          ) {
            landed = true;
            await st.engine.writer.write(makeEvents(20, { startUs: NOW * 1000 - DAY_US, tag: 'late' }), { wait: true });
          }
          return target.scan(...args);
        };
      },
    });
    const raced = new QueryService({ store: racing, control: st.control, clock: st.clock });
    // the 20 late events land inside the range, after the search and before the hint's count:
    // counted before the summaries were read, they made 15 - 30 = -15
    const hint = (await raced.search(SYSTEM_PRINCIPAL, { q: 'nothing-matches-this', from: '-8d' })).meta.hint;
    assert.ok(landed);
    assert.equal(hint?.eventsOutsideRange, 5);
    assert.match(hint.message, /^no events match; 5 events of env "default" lie outside the time range/);
  });
});
