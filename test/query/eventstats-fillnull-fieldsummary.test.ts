import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * eventstats, fillnull and fieldsummary through the real storage engine (half the events in blocks, half live),
 * every answer checked against what the test computes from the same events.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];

const EVENTS: LogEvent[] = Array.from({ length: 240 }, (_, i) => {
  const fields: LogEvent['fields'] = { ms: (i * 37) % 1000, code: String([200, 404, 500][i % 3]) };
  if (i % 4 === 0) fields.user = i % 8 === 0 ? 'alice' : 'bob';
  if (i % 6 === 0) fields.team = 'core';
  if (i % 5 === 0) fields.retries = i % 3;
  return {
    timeUs: (T0 + i * 60_000) * 1000,
    env: 'default',
    index: 'main',
    host: HOSTS[i % 3],
    source: 'test',
    sourcetype: 'unit',
    message: `request ${i}`,
    fields,
  };
});

describe('eventstats, fillnull and fieldsummary over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string, limit = 1000) => svc.search(SYSTEM_PRINCIPAL, { q, limit });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(() => st.close());

  it("adds each group's count and mean to every event, keeping the events and their order", async () => {
    const r = await search('* | eventstats count, avg(ms) as mean by host');
    assert.equal(r.columns, undefined, 'still events');
    assert.equal(r.events.length, EVENTS.length);
    const times = r.events.map((e) => Date.parse(e.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first, as before the pipe',
    );
    for (const h of HOSTS) {
      const mine = EVENTS.filter((e) => e.host === h);
      const mean = mine.reduce((s, e) => s + Number(e.fields.ms), 0) / mine.length;
      for (const e of r.events.filter((x) => x.host === h)) {
        assert.equal(e.fields.count, mine.length);
        assert.ok(Math.abs(Number(e.fields.mean) - mean) < 1e-9, `${h}: ${String(e.fields.mean)} vs ${mean}`);
        assert.equal(typeof e.fields.ms, 'number', 'the event keeps its own fields');
      }
    }
  });

  it('computes over all events without by, leaves events lacking a by field without, and feeds later pipes', async () => {
    const all = await search('* | eventstats dc(user) as users, max(ms) as top | head 3');
    for (const e of all.events)
      assert.deepEqual([e.fields.users, e.fields.top], [2, Math.max(...EVENTS.map((x) => Number(x.fields.ms)))]);
    const byUser = await search('* | eventstats count as n by user');
    for (const e of byUser.events) {
      const u = e.fields.user;
      assert.equal(e.fields.n ?? null, u === undefined ? null : EVENTS.filter((x) => x.fields.user === u).length);
    }
    // events slower than twice their host's mean: the pattern eventstats exists for
    const slow = await search('* | eventstats avg(ms) as mean by host | where ms > 1.5 * mean | stats count by host');
    const expect = HOSTS.map((h) => {
      const mine = EVENTS.filter((e) => e.host === h);
      const mean = mine.reduce((s, e) => s + Number(e.fields.ms), 0) / mine.length;
      return [h, mine.filter((e) => Number(e.fields.ms) > 1.5 * mean).length];
    })
      .filter(([, n]) => Number(n) > 0)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(slow.rows, expect);
  });

  it('replaces a field of the same name instead of adding a second one', async () => {
    const r = await search('* | eventstats max(ms) as ms by host | head 5');
    for (const e of r.events)
      assert.equal(e.fields.ms, Math.max(...EVENTS.filter((x) => x.host === e.host).map((x) => Number(x.fields.ms))));
  });

  it('fills missing values with 0 or a text, in the fields named or all of them', async () => {
    const counts = (q: string) => search(`* | ${q} | stats count by user, team`).then((r) => r.rows);
    const expectRows = (user: (e: LogEvent) => unknown, team: (e: LogEvent) => unknown) => {
      const m = new Map<string, number>();
      for (const e of EVENTS) {
        const k = JSON.stringify([user(e), team(e)]);
        m.set(k, (m.get(k) ?? 0) + 1);
      }
      return [...m]
        .map(([k, n]) => [...(JSON.parse(k) as unknown[]), n])
        .sort((a, b) => (JSON.stringify(a.slice(0, 2)) < JSON.stringify(b.slice(0, 2)) ? -1 : 1));
    };
    const sortRows = (rows: unknown[][] | undefined) =>
      [...(rows ?? [])].sort((a, b) => (JSON.stringify(a.slice(0, 2)) < JSON.stringify(b.slice(0, 2)) ? -1 : 1));
    assert.deepEqual(
      sortRows(await counts('fillnull value="none" user, team')),
      expectRows(
        (e) => e.fields.user ?? 'none',
        (e) => e.fields.team ?? 'none',
      ),
    );
    assert.deepEqual(
      sortRows(await counts('fillnull value="-"')),
      expectRows(
        (e) => e.fields.user ?? '-',
        (e) => e.fields.team ?? '-',
      ),
    );
    // a numeric field stays numeric (0 in the gaps); a field no event has is created
    const r = await search(
      '* | fillnull retries, nosuch | stats sum(retries) as s, count(retries) as n, count(nosuch) as c, max(nosuch) as m',
    );
    const [[sum, n, c, m]] = r.rows as number[][];
    assert.deepEqual(
      [sum, n, c, Number(m)],
      [EVENTS.reduce((a, e) => a + Number(e.fields.retries ?? 0), 0), EVENTS.length, EVENTS.length, 0],
    );
    const typed = await search('* | fillnull retries | where retries >= 0 | stats count');
    assert.deepEqual(typed.rows, [[EVENTS.length]]);
  });

  it('summarises every field: counts, numbers and its first distinct values', async () => {
    const r = await search('* | fieldsummary maxvals=3');
    assert.deepEqual(r.columns, [
      'field',
      'count',
      'distinct_count',
      'numeric_count',
      'min',
      'max',
      'mean',
      'stdev',
      'values',
    ]);
    const row = (f: string) => {
      const x = r.rows!.find((y) => y[0] === f);
      assert.ok(x, `a row for ${f}`);
      return Object.fromEntries(r.columns!.map((c, i) => [c, x[i]]));
    };
    const names = r.rows!.map((y) => y[0] as string);
    assert.deepEqual(names, [...names].sort(), 'sorted by field');
    const ms = EVENTS.map((e) => Number(e.fields.ms));
    const m = row('ms');
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    assert.deepEqual(
      [m.count, m.distinct_count, m.numeric_count, m.min, m.max],
      [ms.length, new Set(ms).size, ms.length, Math.min(...ms), Math.max(...ms)],
    );
    assert.ok(Math.abs(Number(m.mean) - mean) < 1e-9);
    const sd = Math.sqrt(ms.reduce((a, b) => a + (b - mean) ** 2, 0) / (ms.length - 1));
    assert.ok(Math.abs(Number(m.stdev) - sd) < 1e-6, `${String(m.stdev)} vs ${sd}`);
    assert.deepEqual(m.values, [...new Set(ms.map(String))].sort().slice(0, 3));
    const u = row('user');
    assert.deepEqual(
      [u.count, u.distinct_count, u.numeric_count, u.values],
      [EVENTS.filter((e) => e.fields.user).length, 2, 0, ['alice', 'bob']],
    );
    const h = row('host');
    assert.deepEqual([h.count, h.distinct_count, h.values], [EVENTS.length, HOSTS.length, [...HOSTS].sort()]);
    const after = await search('* | where host="db-1" | fieldsummary | where field="host"');
    assert.deepEqual(
      after.rows!.map((y) => [y[0], y[1]]),
      [['host', EVENTS.filter((e) => e.host === 'db-1').length]],
    );
  });
});
