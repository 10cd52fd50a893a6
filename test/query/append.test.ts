import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * append through the real store (half the events in blocks, half live): the subquery's rows come
 * after the main ones, over the same scan even when it reads another index or other words, and
 * both sides' answers equal what the test computes from the events.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];
const EVENTS: LogEvent[] = Array.from({ length: 300 }, (_, i) => ({
  timeUs: (T0 + i * 60_000) * 1000,
  env: 'default',
  index: i % 4 === 0 ? 'audit' : 'main',
  host: HOSTS[i % 3],
  source: 'app',
  sourcetype: 'app',
  message: `${i % 5 === 0 ? 'error' : 'info'} request ${i} status=${[200, 404, 500][i % 3]}`,
  fields: { ms: (i * 37) % 1000 },
}));

describe('append over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string, limit = 1000) => svc.search(SYSTEM_PRINCIPAL, { q, limit });
  const countBy = (evs: LogEvent[], key: (e: LogEvent) => string) => {
    const m = new Map<string, number>();
    for (const e of evs) m.set(key(e), (m.get(key(e)) ?? 0) + 1);
    return m;
  };

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(() => st.close());

  it("puts the subquery's rows after the main ones: per-host counts, then a total", async () => {
    const r = await search(
      'index=main error | stats count by host | append [search index=main error | stats count as count]',
    );
    const errors = EVENTS.filter((e) => e.index === 'main' && e.message.startsWith('error'));
    const hostRows = [...countBy(errors, (e) => e.host)].sort(([a], [b]) => (a < b ? -1 : 1)).map(([h, n]) => [h, n]);
    assert.deepEqual(r.columns, ['host', 'count']);
    assert.deepEqual(r.rows, [...hostRows, [null, errors.length]]);
  });

  it('reads another index and other words than the main search, from the same scan', async () => {
    const r = await search(
      'index=main error | stats count as n by index | append [search index=audit info | stats count as n by index]',
    );
    assert.deepEqual(r.rows, [
      ['main', EVENTS.filter((e) => e.index === 'main' && e.message.startsWith('error')).length],
      ['audit', EVENTS.filter((e) => e.index === 'audit' && e.message.startsWith('info')).length],
    ]);
  });

  it("keeps events as events: the main events newest first, then the subquery's", async () => {
    const r = await search('request 7 | append [search request 8]');
    assert.equal(r.columns, undefined);
    assert.deepEqual(
      r.events.map((e) => e.message),
      [EVENTS[7].message, EVENTS[8].message],
    );
    assert.equal(r.meta.matched, 2);
  });

  it('feeds later pipes and finds fields in the text on both sides', async () => {
    const r = await search(
      'host=web-1 | stats count as n by status | append [search host=db-1 | stats count as n by status] | stats sum(n) as total by status',
    );
    const expect = countBy(
      EVENTS.filter((e) => e.host !== 'web-2'),
      (e) => /status=(\d+)/.exec(e.message)![1],
    );
    assert.deepEqual(new Map(r.rows!.map((x) => [String(x[0]), Number(x[1])])), expect);
  });
});
