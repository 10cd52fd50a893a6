import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvents, openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/** `rename` and `bin` over the real store (half sealed, half live), against what the test computes. */
describe('rename and bin', () => {
  let st: TestStorage;
  let svc: QueryService;
  // one event a minute for 500 minutes, starting at a whole hour
  const START_US = Date.UTC(2026, 0, 10, 3) * 1000;
  const EVENTS: LogEvent[] = makeEvents(500, { startUs: START_US, stepUs: 60_000_000 });
  const rows = async (q: string) => (await svc.search(SYSTEM_PRINCIPAL, { q })).rows!;
  const tally = (keyOf: (e: LogEvent) => string) => {
    const m = new Map<string, number>();
    for (const e of EVENTS) m.set(keyOf(e), (m.get(keyOf(e)) ?? 0) + 1);
    return m;
  };

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(async () => {
    await st.close();
  });

  it('renames a field, and the new name works in later pipes', async () => {
    const got = new Map(
      (await rows('* | rename host as server | stats count by server')).map(([k, n]) => [k as string, n as number]),
    );
    assert.deepEqual(
      got,
      tally((e) => e.host),
    );
    assert.deepEqual(await rows('* | rename seq as n | where n < 10 | stats count'), [[10]]);
    assert.deepEqual(await rows('* | rename host as server | stats count(host) as h'), [[0]], 'the old name is gone');
  });

  it('replaces an existing field of the new name, and renames pairs left to right', async () => {
    assert.deepEqual(await rows('* | rename seq as ratio | stats max(ratio) as m'), [[499]]);
    assert.deepEqual(await rows('* | rename seq as a, a as b | stats max(b) as m'), [[499]]);
  });

  it('renames every field matching a pattern', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '* | rename s*q as z_*_q | table z_e_q | sort -z_e_q | head 2' });
    assert.deepEqual(r.columns, ['z_e_q']);
    assert.deepEqual(r.rows, [[499], [498]]);
  });

  it('keeps the event order when the ordering field is renamed', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '* | rename _time as t | head 3' });
    assert.deepEqual(
      r.events.map((e) => e.fields.seq),
      [499, 498, 497],
    );
  });

  it('bins _time by a span, and stats by the bucket counts per hour as the test does', async () => {
    const got = await rows('* | bin span=1h _time | stats count by _time');
    const want = [
      ...tally((e) => new Date(Math.floor(e.timeUs / 3_600_000_000) * 3_600_000).toISOString().replace('Z', '000Z')),
    ];
    assert.deepEqual(got, want);
    const byHost = await rows('* | bin span=2h _time as slot | stats count by slot, host | head 2');
    assert.equal(byHost.length, 2);
    assert.equal(byHost[0][0], '2026-01-10T02:00:00.000000Z'); // 2-hour buckets from the epoch: 02:00 holds 03:00
  });

  it('bins a number into ranges named as Splunk names them', async () => {
    const got = new Map(
      (await rows('* | bin span=100 seq | stats count by seq')).map(([k, n]) => [k as string, n as number]),
    );
    assert.deepEqual(
      got,
      new Map([
        ['0-100', 100],
        ['100-200', 100],
        ['200-300', 100],
        ['300-400', 100],
        ['400-500', 100],
      ]),
    );
    assert.deepEqual(await rows('* | bucket span=0.5 ratio as r | where seq = 3 | table r seq'), [['0.5-1', 3]]);
  });
});
