import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { FieldValue, LogEvent } from '../../src/events/event.js';

/**
 * if(), case() and coalesce() whose branches have different storage types (a BIGINT field, the
 * VARCHAR column of a field no event has, text, booleans) over the real store, half the events
 * in blocks and half live: every combination answers, checked against the test's own values.
 */
const T0 = Date.UTC(2024, 4, 1);
const EVENTS: LogEvent[] = Array.from({ length: 100 }, (_, i) => ({
  timeUs: (T0 + i * 60_000) * 1000,
  env: 'default',
  index: 'main',
  host: `web-${i % 2}`,
  source: 'test',
  sourcetype: 'unit',
  message: `request ${i}`,
  fields: { ms: (i * 37) % 1000, ok: i % 3 === 0, ...(i % 4 === 0 ? { user: `u${i % 8}` } : {}) },
}));
const ms = (e: LogEvent) => Number(e.fields.ms);

describe('eval branches of different types', () => {
  let st: TestStorage;
  let svc: QueryService;
  /** The value of `v` per event, keyed by the event's message. */
  const values = async (q: string) => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: `* | ${q} | table message, v`, limit: 1000 });
    return new Map(r.rows!.map(([m, v]) => [m as string, v]));
  };

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(() => st.close());

  it('takes a numeric field or a field no event has in if()', async () => {
    const big = await values('eval v=if(ms > 900, ms, absent_field)');
    assert.equal(big.size, EVENTS.length);
    for (const e of EVENTS)
      assert.equal(
        big.get(e.message) === null ? null : Number(big.get(e.message)),
        ms(e) > 900 ? ms(e) : null,
        e.message,
      );
    // and the result still counts as a number for the pipes after it
    const r = await svc.search(SYSTEM_PRINCIPAL, {
      q: '* | eval big=if(ms > 900, ms, absent_field) | where big > 950 | stats count, sum(big) as s',
    });
    const slow = EVENTS.filter((e) => ms(e) > 950);
    assert.deepEqual(r.rows, [[slow.length, slow.reduce((a, e) => a + ms(e), 0)]]);
  });

  it('gives a multivalue when one branch is a multivalue and the other a single value', async () => {
    // Splunk's if(c, mvappend(x, y), x): a single value is a multivalue of one, not the list's text
    const v = await values('eval v=if(ms > 500, mvappend(host, "x"), host)');
    for (const e of EVENTS) assert.deepEqual(v.get(e.message), ms(e) > 500 ? [e.host, 'x'] : [e.host], e.message);
    const c = await values('eval v=coalesce(user, split("a,b", ","))');
    for (const e of EVENTS) assert.deepEqual(c.get(e.message), e.fields.user ? [e.fields.user] : ['a', 'b'], e.message);
  });

  it('keeps numbers numeric when the other branch is null or a number', async () => {
    const r = await values('eval v=if(ms > 500, ms * 2, null)');
    for (const e of EVENTS) assert.equal(r.get(e.message), ms(e) > 500 ? ms(e) * 2 : null);
    const c = await values('eval v=case(ms < 100, 0, ms < 500, ms / 2)');
    for (const e of EVENTS) assert.equal(c.get(e.message), ms(e) < 100 ? 0 : ms(e) < 500 ? ms(e) / 2 : null);
  });

  it('keeps a field stored as numbers a number beside a number, and fillnull too', async () => {
    const r = await values('eval v=if(ms > 900, ms, 0)');
    for (const e of EVENTS) assert.equal(r.get(e.message), ms(e) > 900 ? ms(e) : 0, e.message);
    const f = await values('eval v=if(ms > 900, null, ms) | fillnull value=-1 v');
    for (const e of EVENTS) assert.equal(f.get(e.message), ms(e) > 900 ? -1 : ms(e), e.message);
  });

  it('gives text when the branches mix numbers, text and booleans', async () => {
    const expectText = (e: LogEvent, v: FieldValue | null | undefined) =>
      v === null || v === undefined ? null : String(v);
    const mixed = await values('eval v=if(ok, "yes", ms)');
    for (const e of EVENTS) assert.equal(mixed.get(e.message), expectText(e, e.fields.ok ? 'yes' : ms(e)));
    const lit = await values('eval v=if(ms > 500, 1, "small")');
    for (const e of EVENTS) assert.equal(lit.get(e.message), ms(e) > 500 ? '1' : 'small');
    const cases = await values('eval v=case(ms < 100, ok, ms < 500, user, ms < 800, absent_field, true, ms)');
    for (const e of EVENTS) {
      const want = ms(e) < 100 ? e.fields.ok : ms(e) < 500 ? e.fields.user : ms(e) < 800 ? null : ms(e);
      assert.equal(cases.get(e.message), expectText(e, want), e.message);
    }
    const co = await values('eval v=coalesce(absent_field, user, ms)');
    for (const e of EVENTS) assert.equal(co.get(e.message), String(e.fields.user ?? ms(e)));
  });
});
