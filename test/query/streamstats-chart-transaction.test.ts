import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';
import type { EventJson, ExportHead } from '../../src/query/types.js';

/**
 * streamstats, chart and transaction through the real storage engine (half the events in blocks,
 * half live), every answer checked against what the test computes from the same events.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];
const ROUTES = ['/a', '/a', '/a', '/b', '/b', '/c', '/d', '/e'];
/** Seconds between events: ties (0), pauses short and long, so that every cut rule has work. */
const GAPS = [0, 5, 20, 45, 90, 200, 13, 70, 400];
const KINDS = ['login ok', 'GET /page', 'GET /other', 'log out now', 'GET /page'];

const EVENTS: LogEvent[] = [];
for (let i = 0, t = T0; i < 240; i++, t += GAPS[i % GAPS.length] * 1000) {
  const acct = `u${i % 4}`;
  const fields: LogEvent['fields'] = { ms: (i * 37) % 1000, code: String([200, 404, 500][i % 3]) };
  if (i % 10 !== 9) fields.acct = acct;
  if (i % 11 !== 0) fields.route = ROUTES[i % ROUTES.length];
  const kind = KINDS[(Math.floor(i / 4) * 7 + (i % 4)) % KINDS.length];
  EVENTS.push({
    timeUs: t * 1000,
    env: 'default',
    index: 'main',
    host: HOSTS[i % 3],
    source: 'test',
    sourcetype: 'unit',
    message: `${kind} [${acct}] #${i}`,
    fields,
  });
}
const BY_MESSAGE = new Map(EVENTS.map((e) => [e.message, e]));
const ms = (e: LogEvent) => Number(e.fields.ms);
const raw = (e: EventJson) => BY_MESSAGE.get(e.message)!;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const close = (a: unknown, b: number | null, what: string) =>
  b === null
    ? assert.equal(a ?? null, null, what)
    : assert.ok(Math.abs(Number(a) - b) < 1e-9, `${what}: ${String(a)} vs ${b}`);

/** The transactions the test expects, by the rules of docs/query-language.md, computed event by event. */
function transactions(
  key: (e: LogEvent) => string | undefined,
  o: { maxspan?: number; maxpause?: number; sw?: RegExp; ew?: RegExp },
) {
  const groups = new Map<string, LogEvent[]>();
  for (const e of EVENTS) {
    const k = key(e);
    if (k !== undefined) groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  const out: { key: string; start: number; duration: number; count: number; messages: string[]; hosts: string[] }[] =
    [];
  for (const [k, evs] of groups) {
    evs.sort((a, b) => a.timeUs - b.timeUs || (a.message < b.message ? -1 : 1));
    let cur: LogEvent[] = [];
    const close = () => {
      if (cur.length === 0) return;
      const okStart = !o.sw || o.sw.test(cur[0].message);
      const okEnd = !o.ew || o.ew.test(cur[cur.length - 1].message);
      if (okStart && okEnd)
        out.push({
          key: k,
          start: cur[0].timeUs,
          duration: (cur[cur.length - 1].timeUs - cur[0].timeUs) / 1e6,
          count: cur.length,
          messages: cur.map((e) => e.message),
          hosts: [...new Set(cur.map((e) => e.host))].sort(),
        });
      cur = [];
    };
    for (const e of evs) {
      const last = cur[cur.length - 1];
      const cut =
        !last ||
        (o.sw && o.sw.test(e.message)) ||
        (o.ew && o.ew.test(last.message)) ||
        (o.maxpause !== undefined && e.timeUs - last.timeUs > o.maxpause * 1e6) ||
        (o.maxspan !== undefined && e.timeUs - cur[0].timeUs > o.maxspan * 1e6);
      if (cut) close();
      cur.push(e);
    }
    close();
  }
  return out.sort((a, b) => b.start - a.start || (a.key < b.key ? -1 : 1));
}

describe('streamstats, chart and transaction over the real store', () => {
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

  it('runs count, sum and max per host over the events newest first, in the order they come out', async () => {
    const r = await search('* | streamstats count, sum(ms) as s, max(ms) as top by host');
    assert.equal(r.columns, undefined, 'still events');
    assert.deepEqual(new Set(r.events.map((e) => e.message)), new Set(EVENTS.map((e) => e.message)));
    const times = r.events.map((e) => Date.parse(e.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first, as before the pipe',
    );
    r.events.forEach((e, i) => {
      const before = r.events
        .slice(0, i + 1)
        .filter((x) => x.host === e.host)
        .map((x) => ms(raw(x)));
      assert.deepEqual(
        [e.fields.count, e.fields.s, e.fields.top],
        [before.length, sum(before), Math.max(...before)],
        e.message,
      );
    });
  });

  it('takes the last N events before each one with window and current=false, oldest first after a sort', async () => {
    const r = await search(
      '* | sort _time | streamstats window=3 current=false avg(ms) as a, dc(acct) as users, count',
    );
    const times = r.events.map((e) => Date.parse(e.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'oldest first',
    );
    r.events.forEach((e, i) => {
      const win = r.events.slice(Math.max(0, i - 3), i).map(raw);
      close(e.fields.a, win.length ? sum(win.map(ms)) / win.length : null, `avg at ${i}`);
      assert.equal(
        e.fields.users,
        new Set(win.map((x) => x.fields.acct).filter((u) => u !== undefined)).size,
        `dc at ${i}`,
      );
      assert.equal(e.fields.count, win.length);
    });
  });

  it('counts the window over all groups by default and within the group with global=false', async () => {
    const global = await search('* | sort _time | streamstats window=4 count as n, sum(ms) as s by host');
    global.events.forEach((e, i) => {
      const win = global.events
        .slice(Math.max(0, i - 3), i + 1)
        .filter((x) => x.host === e.host)
        .map(raw);
      assert.deepEqual([e.fields.n, e.fields.s], [win.length, sum(win.map(ms))], `global at ${i}`);
    });
    const apart = await search('* | sort _time | streamstats window=4 global=false count as n, sum(ms) as s by host');
    apart.events.forEach((e, i) => {
      const win = apart.events
        .slice(0, i + 1)
        .filter((x) => x.host === e.host)
        .slice(-4)
        .map(raw);
      assert.deepEqual([e.fields.n, e.fields.s], [win.length, sum(win.map(ms))], `per host at ${i}`);
    });
  });

  it('leaves events lacking a by field without, and feeds later pipes', async () => {
    const r = await search('* | streamstats count as n by acct');
    r.events.forEach((e, i) => {
      const u = raw(e).fields.acct;
      assert.equal(
        e.fields.n ?? null,
        u === undefined ? null : r.events.slice(0, i + 1).filter((x) => raw(x).fields.acct === u).length,
      );
    });
    const firstTen = await search('* | sort _time | streamstats count as seq | where seq <= 10 | stats max(ms) as m');
    assert.deepEqual(firstTen.rows, [
      [
        Math.max(
          ...[...EVENTS]
            .sort((a, b) => a.timeUs - b.timeUs)
            .slice(0, 10)
            .map(ms),
        ),
      ],
    ]);
  });

  it('charts one row per value of over and one column per value of by, NULL for events lacking it', async () => {
    const r = await search('* | chart count over host by route');
    const routes = [...new Set(EVENTS.map((e) => e.fields.route).filter((p) => p !== undefined))].map(String).sort();
    assert.deepEqual(r.columns, ['host', ...routes, 'NULL']);
    const count = (h: string, p: unknown) => EVENTS.filter((e) => e.host === h && e.fields.route === p).length;
    assert.deepEqual(
      r.rows,
      [...HOSTS].sort().map((h) => [h, ...routes.map((p) => count(h, p)), count(h, undefined)]),
    );
    assert.equal(r.meta.matched, EVENTS.length);
    // Splunk's `by x, y` is `over x by y`; without by it is one row per x
    const same = await search('* | chart count by host, route');
    assert.deepEqual([same.columns, same.rows], [r.columns, r.rows]);
    // an export pivots the same way
    const exported: { head?: ExportHead; rows: unknown[][] } = { rows: [] };
    await svc.export(
      SYSTEM_PRINCIPAL,
      { q: '* | chart count over host by route' },
      {
        begin: async (head) => void (exported.head = head),
        events: async () => assert.fail('a chart exports rows'),
        rows: async (batch) => void exported.rows.push(...batch),
      },
    );
    assert.deepEqual([exported.head, exported.rows], [{ mode: 'table', columns: r.columns }, r.rows]);
    const flat = await search('* | chart sum(ms) as total by code');
    assert.deepEqual(
      flat.rows,
      ['200', '404', '500'].map((c) => [c, sum(EVENTS.filter((e) => e.fields.code === c).map(ms))]),
    );
  });

  it('keeps the N largest columns by the first aggregation and gathers the rest as OTHER', async () => {
    const r = await search('* | chart limit=2 count, avg(ms) as mean over code by route');
    const series = (e: LogEvent) => String(e.fields.route ?? 'NULL');
    const totals = new Map<string, number>();
    for (const e of EVENTS) totals.set(series(e), (totals.get(series(e)) ?? 0) + 1);
    const top = [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 2)
      .map(([s]) => s);
    const name = (e: LogEvent) => (top.includes(series(e)) ? series(e) : 'OTHER');
    const cols = [...top.filter((s) => s !== 'NULL').sort(), ...(top.includes('NULL') ? ['NULL'] : []), 'OTHER'];
    assert.deepEqual(r.columns, ['code', ...cols.map((c) => `count: ${c}`), ...cols.map((c) => `mean: ${c}`)]);
    for (const row of r.rows!) {
      const mine = EVENTS.filter((e) => e.fields.code === row[0]);
      cols.forEach((c, i) => {
        const cell = mine.filter((e) => name(e) === c);
        assert.equal(row[1 + i], cell.length, `count ${String(row[0])} ${c}`);
        close(
          row[1 + cols.length + i],
          cell.length ? sum(cell.map(ms)) / cell.length : null,
          `mean ${String(row[0])} ${c}`,
        );
      });
    }
    const only = await search('* | chart limit=2 usenull=false useother=false count over code by route');
    const named = [...new Set(EVENTS.map((e) => e.fields.route).filter((p) => p !== undefined))].map(String);
    const top2 = named
      .map((p) => [p, EVENTS.filter((e) => e.fields.route === p).length] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 2)
      .map(([p]) => p);
    assert.deepEqual(only.columns, ['code', ...[...top2].sort()]);
    assert.deepEqual(
      only.rows,
      ['200', '404', '500'].map((c) => [
        c,
        ...[...top2].sort().map((p) => EVENTS.filter((e) => e.fields.code === c && e.fields.route === p).length),
      ]),
    );
  });

  it('groups events into transactions cut by maxpause and maxspan', async () => {
    for (const [opts, model] of [
      ['maxpause=1m', { maxpause: 60 }],
      // both cut runs of events whose span is well over maxspan, where starting anew from each
      // transaction's first event differs from fixed maxspan-wide slices
      ['maxspan=10m', { maxspan: 600 }],
      ['maxspan=15m maxpause=10m', { maxspan: 900, maxpause: 600 }],
    ] as const) {
      const r = await search(`* | transaction acct ${opts}`);
      // the events' core fields come along, each a multivalue of its distinct values (Splunk's rule)
      assert.deepEqual(r.columns, [
        'acct',
        '_time',
        'duration',
        'eventcount',
        'message',
        'host',
        'source',
        'sourcetype',
        'index',
      ]);
      const want = transactions((e) => e.fields.acct as string | undefined, model);
      assert.deepEqual(
        r.rows!.map(([u, t, d, n, m, h]) => [u, Date.parse(t as string) * 1000, d, n, m, h]),
        want.map((x) => [x.key, x.start, x.duration, x.count, x.messages.join('\n'), x.hosts]),
        opts,
      );
    }
  });

  it('starts transactions at startswith, ends them after endswith, and keeps only the complete ones', async () => {
    const r = await search('* | transaction acct, host startswith=login endswith="log out"');
    const want = transactions((e) => (e.fields.acct === undefined ? undefined : `${String(e.fields.acct)}|${e.host}`), {
      sw: /\blogin\b/i,
      ew: /\blog out\b/i,
    });
    assert.ok(want.length > 3, 'the data has complete transactions');
    assert.deepEqual(
      r.rows!.map(([u, h, t, , n]) => [`${String(u)}|${String(h)}`, Date.parse(t as string) * 1000, n]),
      want.map((x) => [x.key, x.start, x.count]),
    );
    const starts = await search('* | transaction acct startswith=login | stats count, sum(eventcount) as n');
    const ws = transactions((e) => e.fields.acct as string | undefined, { sw: /\blogin\b/i });
    assert.deepEqual(starts.rows, [[ws.length, sum(ws.map((x) => x.count))]]);
  });

  it('makes one transaction of everything without fields, its message capped, and feeds later pipes', async () => {
    const r = await search('* | transaction');
    const sorted = [...EVENTS].sort((a, b) => a.timeUs - b.timeUs || (a.message < b.message ? -1 : 1));
    assert.equal(r.rows!.length, 1);
    const [t, d, n, m] = r.rows![0];
    assert.deepEqual(
      [Date.parse(t as string) * 1000, d, n],
      [sorted[0].timeUs, (sorted[sorted.length - 1].timeUs - sorted[0].timeUs) / 1e6, EVENTS.length],
    );
    assert.equal(
      m,
      sorted
        .slice(0, 100)
        .map((e) => e.message)
        .join('\n'),
      'the first 100 messages, oldest first',
    );
    const avg = await search('* | transaction host maxpause=2m | stats avg(duration) as d, sum(eventcount) as n');
    const want = transactions((e) => e.host, { maxpause: 120 });
    const [[ad, sn]] = avg.rows as number[][];
    close(ad, sum(want.map((x) => x.duration)) / want.length, 'avg(duration)');
    assert.equal(sn, EVENTS.length);
  });
});
