import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import { ControlStore } from '../../src/control/store.js';
import { FileBlobStore } from '../../src/control/blob-store.js';
import { systemClock } from '../../src/clock/clock.js';
import { openLookups, type Lookups } from '../../src/lookups/open.js';
import type { LogEvent } from '../../src/events/event.js';
import type { UserPrincipal } from '../../src/auth/principal.js';
import { ALLOW_ALL } from '../../src/auth/principal.js';
import { lookupWriter } from '../../src/lookups/write-rows.js';

/**
 * The Splunk commands of issue 28 (`| search`, convert, regex, join, mvexpand, makemv,
 * inputlookup) through the real store (half the events in sealed blocks, half live) and real
 * lookup tables, each answer checked against what the test computes from the same events.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];
const DURS = ['00:00:05', '01:02:03', '2+00:00:10', 'soon'];
const MEMS = ['512', '2m', '1.5g', '64k', 'lots'];
const EVENTS: LogEvent[] = Array.from({ length: 240 }, (_, i) => ({
  timeUs: (T0 + i * 60_000) * 1000,
  env: 'default',
  index: 'main',
  host: HOSTS[i % 3],
  source: 'test',
  sourcetype: 'unit',
  message: `${i % 7 === 0 ? 'error' : 'info'} request ${i} user=u${i % 10} status=${[200, 404, 500, 200][i % 4]}`,
  fields: {
    lasttime: 1_700_000_000 + i * 3_661,
    dur: DURS[i % 4],
    mem: MEMS[i % 5],
    amount: i % 6 === 0 ? 'n/a' : `${i},${String(i * 7).padStart(3, '0')}`,
    size: `${i}kb`,
    stamp: `2024-05-${String((i % 28) + 1).padStart(2, '0')} 0${i % 10}:30:00`,
    tags: i % 5 === 0 ? 'a,,b' : `t${i % 3},t${i % 4}`,
  },
}));
const USERS: [string, string, string][] = [
  ['u0', 'Ann', 'core'],
  ['u1', 'Bob', 'core'],
  ['u2', 'Cy', ''],
  ['u3', 'Di', 'web'],
  ['u1', 'Bob Two', 'other'],
  ['u4', 'Ed', 'web'],
];
const csv = (header: string, rows: string[][]) =>
  Buffer.from([header, ...rows.map((r) => r.join(','))].join('\n') + '\n');

const userOf = (e: LogEvent) => /user=(\S+)/.exec(e.message)![1];
const statusOf = (e: LogEvent) => /status=(\d+)/.exec(e.message)![1];
function countBy<T>(xs: T[], key: (x: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}
/** Splunk's default ctime format, in UTC. */
const ctime = (secs: number) => {
  const d = new Date(secs * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
};
const newestFirst = [...EVENTS].reverse();

describe('Splunk commands over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  let control: ControlStore;
  let lookups: Lookups;
  let dir: string;
  const search = (q: string, limit = 1000) => svc.search(SYSTEM_PRINCIPAL, { q, limit, writes: 'allow' });
  async function refused(q: string, message: RegExp): Promise<void> {
    await assert.rejects(search(q), (e) => isSvcError(e) && e.code === 'invalid_query' && message.test(e.message));
  }

  before(async () => {
    st = await openStorage();
    dir = mkdtempSync(join(tmpdir(), 'svc-lookups-'));
    const log = pino({ level: 'silent' });
    control = await ControlStore.open({
      blob: new FileBlobStore(join(dir, 'control.json')),
      encryptionKey: undefined,
      clock: systemClock,
      log,
    });
    lookups = await openLookups({ control, dataDir: dir, clock: systemClock, log });
    await lookups.service.put('users', csv('uid,name,team', USERS), 'test');
    svc = new QueryService({
      store: st.engine,
      control: st.control,
      clock: st.clock,
      lookups: lookups.catalog,
      lookupWriter: lookupWriter(lookups.service),
    });
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(async () => {
    await lookups.close();
    await control.close();
    await st.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('eventtype= and tag=', () => {
    it('answers, and says that svc has no event types or tags to expand them from', async () => {
      const r = await search('eventtype=failed_login OR tag=authentication | stats count');
      assert.deepEqual(r.rows, [[0]]);
      assert.equal(r.meta.warnings?.length, 2);
      assert.match(r.meta.warnings[0], /"eventtype" is a Splunk event type, which svc does not define/);
      assert.match(r.meta.warnings[1], /"tag" is a Splunk tag/);
      const plain = await search('status=404 | stats count');
      assert.equal(plain.meta.warnings, undefined);
    });
  });

  describe('| search', () => {
    it('filters a stats table by its fields: numbers numerically, = with wildcards and without case', async () => {
      const r = await search('* | stats count by user | search count>=24 user=U1* OR user=u2');
      const expect = [...countBy(EVENTS, userOf)]
        .filter(([u, n]) => n >= 24 && (u.startsWith('u1') || u === 'u2'))
        .sort(([a], [b]) => (a < b ? -1 : 1));
      assert.ok(expect.length > 0);
      assert.deepEqual(r.rows, expect);
      const none = await search('* | stats count by user | search count>24');
      assert.deepEqual(none.rows, []);
    });

    it('filters events by fields found in the message and by terms, keeping their order', async () => {
      const r = await search('* | eval n=1 | search status=404 NOT host=db-1 error');
      const expect = newestFirst.filter(
        (e) => statusOf(e) === '404' && e.host !== 'db-1' && e.message.startsWith('error'),
      );
      assert.ok(expect.length > 0);
      assert.deepEqual(
        r.events.map((e) => e.message),
        expect.map((e) => e.message),
      );
      assert.equal(r.meta.matched, expect.length);
    });

    it('reads a field a pipe before it made, and != drops rows without the field', async () => {
      const r = await search('* | rex "request (?<n>\\d+)" | where n < 50 | search n!=7 n!=8 | stats count');
      assert.deepEqual(r.rows, [[48]]);
      const absent = await search('* | search nosuchfield!=x | stats count');
      assert.deepEqual(absent.rows, [[0]]);
    });

    it('refuses a search term after the events became a table, rather than match nothing', async () => {
      await refused('* | stats count by host | search web', /search: web is a search term/);
    });
  });

  describe('convert', () => {
    it("ctime formats epoch seconds with Splunk's default format, or timeformat", async () => {
      const r = await search(
        'request | head 3 | convert ctime(lasttime) as LastTime | convert timeformat="%Y-%m-%d" ctime(lasttime) as day',
      );
      assert.equal(r.events.length, 3);
      r.events.forEach((e, i) => {
        const secs = newestFirst[i].fields.lasttime as number;
        assert.equal(e.fields.LastTime, ctime(secs));
        assert.equal(e.fields.day, new Date(secs * 1000).toISOString().slice(0, 10));
        assert.equal(e.fields.lasttime, secs, 'as leaves the field');
      });
    });

    it('reads times, durations, sizes and numbers like Splunk; in place a value it cannot read stays', async () => {
      const r = await search(
        '* | convert timeformat="%Y-%m-%d %H:%M:%S" mktime(stamp) as t, dur2sec(dur) as d, memk(mem) as m, rmcomma(amount) as a, rmunit(size) as s, num(mem) as n | convert dur2sec(dur)',
      );
      assert.equal(r.events.length, EVENTS.length);
      const durSecs: Record<string, number | null> = {
        '00:00:05': 5,
        '01:02:03': 3723,
        '2+00:00:10': 172810,
        soon: null,
      };
      const memK: Record<string, number | null> = { '512': 512, '2m': 2048, '1.5g': 1572864, '64k': 64, lots: null };
      r.events.forEach((e, i) => {
        const ev = newestFirst[i];
        assert.equal(e.fields.t, Date.parse(`${ev.fields.stamp as string}Z`.replace(' ', 'T')) / 1000);
        assert.equal(e.fields.d ?? null, durSecs[ev.fields.dur as string]);
        assert.equal(e.fields.m ?? null, memK[ev.fields.mem as string]);
        const amount = ev.fields.amount as string;
        assert.equal(e.fields.a ?? null, amount === 'n/a' ? null : Number(amount.replace(',', '')));
        assert.equal(e.fields.s, Number.parseInt(ev.fields.size as string));
        assert.equal(e.fields.n ?? null, /^\d+$/.test(ev.fields.mem as string) ? Number(ev.fields.mem) : null);
        // in place: converted where it reads, else as it was
        const sec = durSecs[ev.fields.dur as string];
        assert.equal(e.fields.dur, sec === null ? ev.fields.dur : String(sec));
      });
    });

    it('auto converts a field only when all of its values are numbers; wildcards convert every match', async () => {
      const r = await search(
        '* | eval x="0" . tostring(lasttime % 11) | convert auto(x), auto(mem) | stats values(x) as x, values(mem) as mem',
      );
      const xs = [...new Set(EVENTS.map((e) => String((e.fields.lasttime as number) % 11)))].sort();
      assert.equal(xs.length, 11);
      assert.deepEqual(r.rows![0][0], xs, 'numbers written as numbers: 07 → 7');
      assert.deepEqual(r.rows![0][1], [...new Set(MEMS)].sort(), 'mem has text: left whole');
      const t = await search('request | head 2 | convert timeformat="%H:%M:%S" ctime(_time) as c_time');
      assert.deepEqual(
        t.events.map((e) => e.fields.c_time),
        newestFirst.slice(0, 2).map((e) => new Date(e.timeUs / 1000).toISOString().slice(11, 19)),
      );
      await refused('* | convert ctime(_time)', /convert: cannot convert _time in place/);
      const w = await search(
        'request | head 1 | eval at_time=lasttime, by_time=lasttime | convert ctime(*_time), none(by_time)',
      );
      const secs = newestFirst[0].fields.lasttime as number;
      assert.equal(w.events[0].fields.at_time, ctime(secs));
      assert.equal(w.events[0].fields.by_time, secs);
    });
  });

  describe('regex', () => {
    it('keeps rows whose field matches, or with != those that do not (rows without the field kept)', async () => {
      const hits = await search('* | regex "^error request \\d*7 "');
      const expect = newestFirst.filter((e) => /^error request \d*7 /.test(e.message));
      assert.ok(expect.length > 0);
      assert.deepEqual(
        hits.events.map((e) => e.message),
        expect.map((e) => e.message),
      );
      const not = await search('* | regex host!="^web-" | regex nosuch!="x" | stats count');
      assert.deepEqual(not.rows, [[EVENTS.filter((e) => !e.host.startsWith('web-')).length]]);
      const caseless = await search('* | regex host="(?i)WEB-1" | stats count');
      assert.deepEqual(caseless.rows, [[EVENTS.filter((e) => e.host === 'web-1').length]]);
    });
  });

  describe('join', () => {
    it('adds the subsearch row with equal keys (inner drops rows without one, left keeps them)', async () => {
      const inner = await search(
        '* | stats count as n by user | join user [search error status=500 | stats count as errors by user]',
      );
      const all = countBy(EVENTS, userOf);
      const errs = countBy(
        EVENTS.filter((e) => e.message.startsWith('error') && statusOf(e) === '500'),
        userOf,
      );
      const users = [...all.keys()].sort();
      assert.ok(users.some((u) => !errs.has(u)) && errs.size > 0, 'some users have such errors, some not');
      assert.deepEqual(inner.columns, ['user', 'n', 'errors']);
      assert.deepEqual(
        inner.rows,
        users.filter((u) => errs.has(u)).map((u) => [u, all.get(u), errs.get(u)]),
      );
      const left = await search(
        '* | stats count as n by user | join type=outer user [search error status=500 | stats count as errors by user]',
      );
      assert.deepEqual(
        left.rows,
        users.map((u) => [u, all.get(u), errs.get(u) ?? null]),
      );
    });

    it('meets max rows of the subsearch (default 1, in its order; 0 all), and overwrite says whose value wins', async () => {
      const one = await search('* | stats count by host | join host [search * | table host, message]');
      for (const [host, , message] of one.rows!)
        assert.equal(message, newestFirst.find((e) => e.host === host)!.message, 'the newest of each host');
      const all = await search(
        '* | stats count by host | join max=0 host [search * | table host, message] | stats count',
      );
      assert.deepEqual(all.rows, [[EVENTS.length]]);
      const own = await search(
        '* | stats count by host | join overwrite=false host [search error | stats count by host] | sort host',
      );
      const theirs = await search(
        '* | stats count by host | join host [search error | stats count by host] | sort host',
      );
      const all3 = countBy(EVENTS, (e) => e.host);
      const err3 = countBy(
        EVENTS.filter((e) => e.message.startsWith('error')),
        (e) => e.host,
      );
      const hosts = [...all3.keys()].sort();
      assert.deepEqual(
        own.rows,
        hosts.map((h) => [h, all3.get(h)]),
      );
      assert.deepEqual(
        theirs.rows,
        hosts.map((h) => [h, err3.get(h)]),
      );
    });

    it('joins on the fields both sides have when none are named, and against a lookup table', async () => {
      const r = await search(
        '* | stats count by user | join [search error | stats count as errors by user] | stats count',
      );
      assert.deepEqual(r.rows, [
        [
          countBy(
            EVENTS.filter((e) => e.message.startsWith('error')),
            userOf,
          ).size,
        ],
      ]);
      const t = await search(
        '* | stats count by user | rename user as uid | join uid [| inputlookup users] | table uid, count, name, team',
      );
      const first = (u: string) => USERS.find((x) => x[0] === u);
      const per = countBy(EVENTS, userOf);
      assert.deepEqual(
        t.rows,
        [...per.keys()]
          .sort()
          .filter((u) => first(u))
          .map((u) => [u, per.get(u), first(u)![1], first(u)![2] || null]),
      );
    });
  });

  describe('makemv and mvexpand', () => {
    it('split text into values (empty ones dropped) and make one row per value, in order', async () => {
      const r = await search('request | head 5 | makemv delim="," tags | mvexpand tags | table message, tags');
      const expect = newestFirst.slice(0, 5).flatMap((e) =>
        (e.fields.tags as string)
          .split(',')
          .filter((t) => t !== '')
          .map((t) => [e.message, t]),
      );
      assert.deepEqual(r.rows, expect);
      const lim = await search(
        'request | head 5 | makemv delim="," allowempty=true tags | mvexpand tags limit=2 | stats count',
      );
      assert.deepEqual(lim.rows, [[10]]);
    });

    it("expands values() and a tokenizer's matches", async () => {
      const r = await search('* | stats values(status) as st by host | mvexpand st | stats count by st');
      const pairs = new Set(EVENTS.map((e) => `${e.host} ${statusOf(e)}`));
      assert.deepEqual(
        r.rows,
        [...countBy([...pairs], (p) => p.split(' ')[1])].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      const tok = await search('request | head 1 | makemv tokenizer="(t\\d)" tags | mvexpand tags | table tags');
      assert.deepEqual(
        tok.rows,
        (newestFirst[0].fields.tags as string)
          .split(',')
          .filter((t) => /^t\d$/.test(t))
          .map((t) => [t]),
      );
    });
  });

  describe('inputlookup', () => {
    it("starts a search with the table's rows in CSV order, empty cells without a value", async () => {
      const r = await search('| inputlookup users');
      assert.deepEqual(r.columns, ['uid', 'name', 'team']);
      assert.deepEqual(
        r.rows,
        USERS.map((u) => [u[0], u[1], u[2] || null]),
      );
      assert.equal(r.meta.matched, USERS.length);
      const csvName = await search('| inputlookup users.csv where team=core OR uid=u3 | stats count by team');
      assert.deepEqual(csvName.rows, [
        ['core', 2],
        ['web', 1],
      ]);
      const window = await search('| inputlookup start=1 max=2 users | fields uid');
      assert.deepEqual(window.rows, [['u1'], ['u2']]);
    });

    it('adds the rows after the current ones with append=true, and refuses an unknown table', async () => {
      const r = await search('* | stats count by host | inputlookup append=t users | fields host, count, uid');
      const per = countBy(EVENTS, (e) => e.host);
      assert.deepEqual(r.rows, [
        ...[...per.keys()].sort().map((h) => [h, per.get(h), null]),
        ...USERS.map((u) => [null, null, u[0]]),
      ]);
      await refused('| inputlookup nosuch', /inputlookup: unknown lookup table "nosuch"/);
    });
  });

  describe('outputlookup', () => {
    const user: UserPrincipal = {
      kind: 'user',
      id: 'u-1',
      name: 'ann',
      role: 'user',
      scopes: new Set(['standard']),
      allow: ALLOW_ALL,
      sessionId: 's',
    };

    it('writes the table of the search as a lookup table, which inputlookup and lookup then read', async () => {
      const r = await search('* | stats count as n by host | outputlookup hosts_seen');
      const per = [...countBy(EVENTS, (e) => e.host)].sort(([a], [b]) => (a < b ? -1 : 1));
      assert.deepEqual(r.rows, per, 'the rows pass through');
      const back = await search('| inputlookup hosts_seen');
      assert.deepEqual(back.columns, ['host', 'n']);
      assert.deepEqual(
        back.rows,
        per.map(([h, n]) => [h, String(n)]),
        'as text, as any uploaded table',
      );
      const { data } = await lookups.service.csv('hosts_seen');
      assert.equal(data.toString(), `host,n\n${per.map(([h, n]) => `${h},${n}`).join('\n')}\n`);
      const joined = await search('host=db-1 | head 1 | lookup hosts_seen host output n | table host, n');
      assert.deepEqual(joined.rows, [['db-1', String(per.find(([h]) => h === 'db-1')![1])]]);
    });

    it("with append=true adds the rows after the table's own, columns joined by name", async () => {
      await search('* | stats count by user | where count > 23 | table user | outputlookup seen_users');
      await search('error | stats count as errors by user | outputlookup append=true seen_users');
      const back = await search('| inputlookup seen_users');
      const users = [...countBy(EVENTS, userOf)]
        .filter(([, n]) => n > 23)
        .map(([u]) => u)
        .sort();
      const errs = [
        ...countBy(
          EVENTS.filter((e) => e.message.startsWith('error')),
          userOf,
        ),
      ].sort(([a], [b]) => (a < b ? -1 : 1));
      assert.deepEqual(back.columns, ['user', 'errors']);
      assert.deepEqual(back.rows, [...users.map((u) => [u, null]), ...errs.map(([u, n]) => [u, String(n)])]);
    });

    it('writes the rows that reach it in the middle of a search and passes them on', async () => {
      const r = await search('* | stats count by host | outputlookup mid_hosts | stats count as hosts');
      assert.deepEqual(r.rows, [[HOSTS.length]]);
      const back = await search('| inputlookup mid_hosts');
      const perHost = countBy(EVENTS, (e) => e.host);
      assert.deepEqual(
        back.rows,
        [...perHost].sort(([a], [b]) => (a < b ? -1 : 1)).map(([h, n]) => [h, String(n)]),
      );
      await refused(
        '* | stats count by host | outputlookup a | outputlookup b',
        /outputlookup: a search writes one table or index: only one outputlookup or collect/,
      );
    });

    it('needs the admin right, a table and some rows', async () => {
      await assert.rejects(
        svc.search(user, { q: '* | stats count by host | outputlookup x', limit: 10 }),
        (e) => isSvcError(e) && e.code === 'insufficient_scope',
      );
      assert.ok(!lookups.service.list().some((t) => t.name === 'x'));
      await refused(
        '* | append [search * | stats count | outputlookup x]',
        /outputlookup: cannot be used inside a subsearch/,
      );
      await refused('* | outputlookup x', /outputlookup: writes a table/);
      const none = await search('* | stats count by host | where count > 1000 | outputlookup hosts_seen');
      assert.deepEqual(none.rows, []);
      assert.match(none.meta.warnings?.[0] ?? '', /gave no rows, so lookup table "hosts_seen" was left as it was/);
      assert.equal((await search('| inputlookup hosts_seen')).rows?.length, 3, 'the table is as it was');
    });

    it('runs only when the caller confirms the write, and never as a histogram or a field summary', async () => {
      const q = '* | stats count by host | where host="db-1" | outputlookup hosts_seen';
      await assert.rejects(
        svc.search(SYSTEM_PRINCIPAL, { q, limit: 10 }),
        (e) => isSvcError(e) && e.code === 'invalid_query' && /writes lookup table "hosts_seen"/.test(e.message),
      );
      await assert.rejects(svc.histogram(SYSTEM_PRINCIPAL, { q }), /outputlookup: a histogram does not write/);
      await assert.rejects(svc.fields(SYSTEM_PRINCIPAL, { q }), /outputlookup: a field summary does not write/);
      assert.equal((await search('| inputlookup hosts_seen')).rows?.length, 3, 'the table is as it was');
    });
  });
});
