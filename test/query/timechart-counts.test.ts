import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';
import type { EventStore } from '../../src/storage/types.js';

/**
 * `* | timechart … count` and the histogram of `*` come from the store's per-minute counts. Each
 * answer is checked three ways: against the test's own count of the events it wrote, against the
 * same chart through the SQL path (an `eval` pipe in front keeps the query off the fast path),
 * and that the fast path was actually taken.
 */
const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2025, 6, 1, 0, 0, 0);

function makeEvents(n: number, seed: number): LogEvent[] {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: LogEvent[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      timeUs: (T0 + Math.floor(rnd() * 50 * HOUR_MS)) * 1000 + Math.floor(rnd() * 1000),
      env: rnd() < 0.15 ? 'other' : 'default',
      index: rnd() < 0.5 ? 'web' : 'app',
      host: HOSTS[i % HOSTS.length],
      source: 'test',
      sourcetype: 'unit',
      message: `event ${i}`,
      fields: { i },
    });
  }
  return out;
}

/** Hosts whose order differs between UTF-16 and UTF-8 byte order, and an empty one. */
const HOSTS = ['h0', 'h1', 'H2', 'é-host', '\u{1F600}-emoji', '\uFB01-ligature', ''];

const SEALED = makeEvents(3000, 17);
const LIVE = makeEvents(1200, 29);
const DEFAULT = [...SEALED, ...LIVE].filter((e) => e.env === 'default');

/** The chart the test expects: [time text, count] for every bucket from the first to the last with events. */
function chart(events: LogEvent[], spanSecs: number, fromMs = -Infinity, toMs = Infinity): [string, number][] {
  const spanUs = spanSecs * 1_000_000;
  const acc = new Map<number, number>();
  for (const e of events)
    if (e.timeUs >= fromMs * 1000 && e.timeUs < toMs * 1000)
      acc.set(Math.floor(e.timeUs / spanUs), (acc.get(Math.floor(e.timeUs / spanUs)) ?? 0) + 1);
  if (acc.size === 0) return [];
  const keys = [...acc.keys()];
  const out: [string, number][] = [];
  for (let b = Math.min(...keys); b <= Math.max(...keys); b++)
    out.push([new Date((b * spanUs) / 1000).toISOString().replace('Z', '000Z'), acc.get(b) ?? 0]);
  return out;
}

describe('unfiltered counts per time bucket and per value from metadata', () => {
  let st: TestStorage;
  let svc: QueryService;
  const calls = { countByBucket: 0, countByValue: 0, scan: 0 };

  before(async () => {
    st = await openStorage();
    st.control.setEnv('other');
    const engine = st.engine;
    // the real engine, counting which read path each answer took
    const store: EventStore = {
      scan: (spec, run) => (calls.scan++, engine.scan(spec, run)),
      partitions: (envs) => engine.partitions(envs),
      fields: (spec) => engine.fields(spec),
      countByBucket: (spec, spanUs) => (calls.countByBucket++, engine.countByBucket(spec, spanUs)),
      countByValue: (spec, column) => (calls.countByValue++, engine.countByValue(spec, column)),
    };
    svc = new QueryService({ store, control: st.control, clock: st.clock });
    await engine.writer.write(SEALED, { wait: true });
    await engine.flush(); // sealed blocks, and live data over the same hours
    await engine.writer.write(LIVE, { wait: true });
  });
  after(async () => {
    await st.close();
  });

  /** Runs `q` on the fast path and `sqlQ` on the SQL path; asserts the path taken and equal answers. */
  async function both(q: string, sqlQ: string, req: Record<string, string> = {}) {
    const before = { ...calls };
    const fast = await svc.search(SYSTEM_PRINCIPAL, { q, ...req });
    assert.equal(calls.countByBucket - before.countByBucket, 1, `${q}: answered from counts`);
    assert.equal(calls.scan - before.scan, 0, `${q}: no scan`);
    const slow = await svc.search(SYSTEM_PRINCIPAL, { q: sqlQ, ...req });
    assert.equal(calls.countByBucket - before.countByBucket, 1, `${sqlQ}: took the SQL path`);
    assert.deepEqual(fast.columns, slow.columns);
    assert.deepEqual(fast.rows, slow.rows);
    assert.equal(fast.meta.matched, slow.meta.matched);
    assert.equal(fast.meta.scanned, slow.meta.scanned);
    return fast;
  }

  it('charts every event per hour over blocks and live data', async () => {
    const r = await both('* | timechart span=1h count', '* | eval z=1 | timechart span=1h count');
    assert.deepEqual(r.columns, ['_time', 'count']);
    assert.deepEqual(r.rows, chart(DEFAULT, 3600));
    assert.equal(r.meta.matched, DEFAULT.length);
  });

  it('charts a range that cuts through blocks at odd milliseconds, with an alias', async () => {
    const from = new Date(T0 + 7 * HOUR_MS + 123_457).toISOString();
    const to = new Date(T0 + 31 * HOUR_MS + 59_999).toISOString();
    const r = await both('* | timechart span=5m count as n', '* | eval z=1 | timechart span=5m count as n', {
      from,
      to,
    });
    assert.deepEqual(r.columns, ['_time', 'n']);
    assert.deepEqual(r.rows, chart(DEFAULT, 300, Date.parse(from), Date.parse(to)));
  });

  it('honours earliest/latest in the query, an index, and an automatic span', async () => {
    const q = `earliest=${new Date(T0 + 3 * HOUR_MS + 1).toISOString()} latest=${new Date(T0 + 20 * HOUR_MS).toISOString()} * | timechart count`;
    const r = await both(q, q.replace('* |', '* | eval z=1 |'), { index: 'web' });
    const web = DEFAULT.filter((e) => e.index === 'web');
    // 17 h in at most 100 buckets: 10 minutes would take 102, so the automatic span is 30 minutes
    assert.deepEqual(r.rows, chart(web, 1800, T0 + 3 * HOUR_MS + 1, T0 + 20 * HOUR_MS));
  });

  it('gives the same answer for a span that is not a whole number of minutes', async () => {
    const from = new Date(T0 + 10 * HOUR_MS + 1).toISOString();
    const to = new Date(T0 + 12 * HOUR_MS).toISOString();
    const r = await both('* | timechart span=30s count', '* | eval z=1 | timechart span=30s count', { from, to });
    assert.deepEqual(r.rows, chart(DEFAULT, 30, Date.parse(from), Date.parse(to)));
  });

  it('takes the SQL path for a chart by a field or with a search term', async () => {
    const before = calls.countByBucket;
    await svc.search(SYSTEM_PRINCIPAL, { q: '* | timechart span=1h count by host' });
    await svc.search(SYSTEM_PRINCIPAL, { q: 'event | timechart span=1h count' });
    await svc.search(SYSTEM_PRINCIPAL, { q: '* | timechart span=1h count, dc(host)' });
    assert.equal(calls.countByBucket, before);
  });

  it('answers the histogram of * from counts, equal to the SQL path and to the events', async () => {
    for (const req of [
      {} as { from?: string; to?: string; buckets?: number },
      {
        from: new Date(T0 + 5 * HOUR_MS + 7).toISOString(),
        to: new Date(T0 + 9 * HOUR_MS + 30_001).toISOString(),
        buckets: 40,
      },
    ]) {
      const n = calls.countByBucket;
      const fast = await svc.histogram(SYSTEM_PRINCIPAL, { q: '*', ...req });
      assert.equal(calls.countByBucket, n + 1);
      const slow = await svc.histogram(SYSTEM_PRINCIPAL, { q: '* | eval z=1', ...req });
      assert.equal(calls.countByBucket, n + 1);
      assert.deepEqual(fast.buckets, slow.buckets);
      assert.equal(fast.meta.matched, slow.meta.matched);
      assert.equal(fast.meta.scanned, slow.meta.scanned);
      const fromMs = req.from ? Date.parse(req.from) : -Infinity;
      const toMs = req.to ? Date.parse(req.to) : Infinity;
      const inRange = DEFAULT.filter((e) => e.timeUs >= fromMs * 1000 && e.timeUs < toMs * 1000);
      assert.equal(fast.meta.matched, inRange.length);
      const spanUs = fast.spanSecs * 1_000_000;
      for (const b of fast.buckets) {
        const start = Date.parse(b.time) * 1000;
        assert.equal(b.count, inRange.filter((e) => e.timeUs >= start && e.timeUs < start + spanUs).length, b.time);
      }
    }
  });

  /** `stats count by <column>` on the fast path and, behind an `eval`, the SQL path: equal, and equal to the events. */
  async function byValue(
    column: 'host' | 'sourcetype' | 'index' | 'env',
    alias = '',
    req: { from?: string; to?: string; index?: string } = {},
  ) {
    const q = `* | stats count${alias ? ` as ${alias}` : ''} by ${column}`;
    const before = { ...calls };
    const fast = await svc.search(SYSTEM_PRINCIPAL, { q, ...req });
    assert.equal(calls.countByValue - before.countByValue, 1, `${q}: answered from value counts`);
    assert.equal(calls.scan - before.scan, 0, `${q}: no scan`);
    const slow = await svc.search(SYSTEM_PRINCIPAL, { q: q.replace('* |', '* | eval z=1 |'), ...req });
    assert.equal(calls.countByValue - before.countByValue, 1, 'the eval query took the SQL path');
    assert.deepEqual(fast.columns, slow.columns);
    assert.deepEqual(fast.rows, slow.rows);
    assert.equal(fast.meta.matched, slow.meta.matched);
    assert.equal(fast.meta.scanned, slow.meta.scanned);
    const fromMs = req.from ? Date.parse(req.from) : -Infinity;
    const toMs = req.to ? Date.parse(req.to) : Infinity;
    const mine = new Map<string, number>();
    for (const e of DEFAULT)
      if (e.timeUs >= fromMs * 1000 && e.timeUs < toMs * 1000 && (!req.index || e.index === req.index))
        mine.set(e[column], (mine.get(e[column]) ?? 0) + 1);
    assert.deepEqual(new Map(fast.rows as [string, number][]), mine);
    return fast;
  }

  it("counts by host from the blocks' value counts, in DuckDB's order, equal to the SQL path", async () => {
    const r = await byValue('host');
    assert.deepEqual(r.columns, ['host', 'count']);
    // UTF-8 byte order: the ligature (U+FB01) before the emoji (U+1F600), unlike UTF-16 order
    const hosts = (r.rows as [string][]).map(([h]) => h);
    assert.ok(hosts.indexOf('\uFB01-ligature') < hosts.indexOf('\u{1F600}-emoji'));
    const direct = await st.engine.countByValue({ envs: ['default'], indexes: null }, 'host');
    assert.ok(direct.fromMetadata > 0, 'sealed blocks answered from their sidecars');
    assert.ok(direct.fromRows > 0, 'live data answered from rows');
  });

  it('counts by sourcetype, index and env over a range that cuts through blocks, with an alias', async () => {
    const req = {
      from: new Date(T0 + 7 * HOUR_MS + 123_457).toISOString(),
      to: new Date(T0 + 31 * HOUR_MS + 59_999).toISOString(),
    };
    assert.deepEqual((await byValue('sourcetype', 'n', req)).columns, ['sourcetype', 'n']);
    await byValue('index', '', req);
    await byValue('env');
    await byValue('host', 'events', { index: 'web' });
  });

  it('takes the SQL path for anything else', async () => {
    const before = calls.countByValue;
    await svc.search(SYSTEM_PRINCIPAL, { q: '* | stats count by host, index' });
    await svc.search(SYSTEM_PRINCIPAL, { q: 'event | stats count by host' });
    await svc.search(SYSTEM_PRINCIPAL, { q: '* | stats dc(host) by index' });
    await svc.search(SYSTEM_PRINCIPAL, { q: '* | stats count by i' });
    await assert.rejects(svc.search(SYSTEM_PRINCIPAL, { q: '* | stats count as host by host' }));
    assert.equal(calls.countByValue, before);
  });
});
