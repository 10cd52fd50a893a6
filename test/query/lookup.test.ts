import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import { ControlStore } from '../../src/control/store.js';
import { FileBlobStore } from '../../src/control/blob-store.js';
import { systemClock } from '../../src/clock/clock.js';
import { openLookups, type Lookups } from '../../src/lookups/open.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * The lookup pipe through the real storage engine (half the events in blocks, half live) and real
 * lookup tables (uploaded through LookupService into Parquet), every answer checked against what
 * the test computes from the same events and CSV rows.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];
const EVENTS: LogEvent[] = Array.from({ length: 240 }, (_, i) => {
  const fields: LogEvent['fields'] = { code: [200, 404, 500][i % 3], ms: i % 8 === 0 ? i / 2 : i + 0.5 };
  if (i % 5 !== 0) fields.uid = `u${i % 10}`;
  if (i % 6 === 0) fields.team = 'own-team';
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

/** u8 and u9 have no row; u1 has two (the first wins); u2's team cell is empty. */
const USERS: [string, string, string][] = [
  ['u0', 'Ann', 'core'],
  ['u1', 'Bob', 'core'],
  ['u2', 'Cy', ''],
  ['u3', 'Di', 'web'],
  ['u1', 'Bob Two', 'other'],
  ['u4', 'Ed', 'web'],
  ['u5', 'Flo', 'db'],
  ['u6', 'Gus', 'db'],
  ['u7', 'Hal', 'ops'],
];
const CODES = [
  ['200', 'OK'],
  ['404', 'Not Found'],
];
const OWNERS = [
  ['web-1', '200', 'alice'],
  ['web-2', '404', 'bob'],
  ['db-1', '500', 'carol'],
  ['web-1', '404', 'dave'],
];
const csv = (header: string, rows: string[][]) =>
  Buffer.from([header, ...rows.map((r) => r.join(','))].join('\n') + '\n');

const firstUser = (uid: unknown) => USERS.find((u) => u[0] === uid);

describe('the lookup pipe over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  let control: ControlStore;
  let lookups: Lookups;
  let dir: string;
  const search = (q: string, limit = 1000) => svc.search(SYSTEM_PRINCIPAL, { q, limit });

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
    await lookups.service.put('codes', csv('code,desc', CODES), 'test');
    await lookups.service.put('owners', csv('host,code,owner', OWNERS), 'test');
    await lookups.service.put(
      'ms',
      csv('ms,label', [
        ['4', 'four'],
        ['4.5', 'four and a half'],
        ['8', 'eight'],
        ['64', 'sixty-four'],
      ]),
      'test',
    );
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock, lookups: lookups.catalog });
    await st.engine.writer.write(EVENTS.slice(0, 120), { wait: true });
    await st.engine.flush();
    await st.engine.writer.write(EVENTS.slice(120), { wait: true });
  });
  after(async () => {
    await lookups.close();
    await control.close();
    await st.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds every other column of the first matching row, null where none matches, keeping the events and their order', async () => {
    const r = await search('* | lookup users uid');
    assert.equal(r.events.length, EVENTS.length);
    assert.equal(r.meta.matched, EVENTS.length);
    const times = r.events.map((e) => Date.parse(e.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first, as before the pipe',
    );
    for (const e of r.events) {
      const u = firstUser(e.fields.uid);
      assert.equal(e.fields.name ?? null, u ? u[1] : null, `${e.message}: name`);
      // without outputnew the table's value wins, also over the event's own team (and no row clears it)
      assert.equal(e.fields.team ?? null, u && u[2] !== '' ? u[2] : null, `${e.message}: team`);
      assert.equal(typeof e.fields.code, 'number', 'the event keeps its own fields');
    }
  });

  it('with outputnew fills only the fields an event lacks, and names outputs with as', async () => {
    const r = await search('* | lookup users uid outputnew team, name as who');
    for (const e of r.events) {
      const mine = EVENTS.find((x) => `request ${EVENTS.indexOf(x)}` === e.message)!;
      const u = firstUser(e.fields.uid);
      assert.equal(e.fields.team ?? null, mine.fields.team ?? (u && u[2] !== '' ? u[2] : null), e.message);
      assert.equal(e.fields.who ?? null, u ? u[1] : null);
      assert.equal(e.fields.name, undefined, 'only the columns named');
    }
  });

  it('matches numbers as the text the CSV holds, whole DOUBLEs without ".0"', async () => {
    const codes = await search('* | lookup codes code output desc as description | stats count by description');
    const expectCodes = new Map<string, number>();
    for (const e of EVENTS) {
      // 500 has no row: those events lack the field, and stats by leaves them out
      const d = CODES.find((c) => c[0] === String(e.fields.code))?.[1];
      if (d) expectCodes.set(d, (expectCodes.get(d) ?? 0) + 1);
    }
    assert.deepEqual(new Map(codes.rows!.map(([d, n]) => [d as string, n as number])), expectCodes);
    const ms = await search('* | lookup ms ms output label | where isnotnull(label) | stats count by label');
    const labels: Record<string, string> = { '4': 'four', '4.5': 'four and a half', '8': 'eight', '64': 'sixty-four' };
    const expectMs = new Map<string, number>();
    for (const e of EVENTS) {
      const l = labels[String(e.fields.ms)];
      if (l) expectMs.set(l, (expectMs.get(l) ?? 0) + 1);
    }
    assert.ok(expectMs.size === 4, 'the data holds every case, in blocks (i < 120) and live');
    assert.deepEqual(new Map(ms.rows!.map(([l, n]) => [l as string, n as number])), expectMs);
  });

  it('matches on several fields at once and feeds later pipes', async () => {
    const r = await search('* | lookup owners host, code output owner | stats count by owner | sort owner');
    const m = new Map<string, number>();
    for (const e of EVENTS) {
      const o = OWNERS.find((x) => x[0] === e.host && x[1] === String(e.fields.code))?.[2];
      if (o) m.set(o, (m.get(o) ?? 0) + 1);
    }
    assert.ok(m.size >= 3, 'several owners match');
    assert.deepEqual(
      r.rows,
      [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );
  });

  it('keeps an order that read a field the lookup replaces', async () => {
    const r = await search(
      '* | where isnotnull(uid) | sort uid, -_time | lookup users uid output name as uid | head 50',
    );
    const expected = EVENTS.filter((e) => e.fields.uid !== undefined)
      .sort((a, b) => (a.fields.uid < b.fields.uid ? -1 : a.fields.uid > b.fields.uid ? 1 : b.timeUs - a.timeUs))
      .slice(0, 50)
      .map((e) => firstUser(e.fields.uid)?.[1] ?? null);
    assert.deepEqual(
      r.events.map((e) => e.fields.uid ?? null),
      expected,
    );
  });

  it('rejects an unknown table or column with a 400 naming it, whatever the data', async () => {
    const cases: [string, RegExp][] = [
      ['* | lookup nosuch uid', /^lookup: unknown lookup table "nosuch"/],
      ['nothing-matches-this | lookup nosuch uid', /^lookup: unknown lookup table "nosuch"/],
      ['* | lookup users id', /^lookup: table "users" has no column "id" \(its columns: uid, name, team\)$/],
      ['* | lookup users uid output nope', /^lookup: table "users" has no column "nope"/],
      ['* | lookup users uid output name as _time', /^lookup: cannot write the event time _time/],
      ['* | lookup users uid output name as __ord', /^lookup: cannot write "__ord"/],
      ['* | lookup users uid output name as x, team as x', /^lookup: "x" would name two columns/],
    ];
    for (const [q, re] of cases) {
      await assert.rejects(
        search(q),
        (e: unknown) => isSvcError(e) && e.code === 'invalid_query' && re.test(e.message),
        q,
      );
    }
  });

  it('answers the histogram of a query with a lookup', async () => {
    const h = await svc.histogram(SYSTEM_PRINCIPAL, { q: '* | lookup users uid | where team="web"', buckets: 4 });
    const total = h.buckets.reduce((s, b) => s + b.count, 0);
    assert.equal(total, EVENTS.filter((e) => ['web'].includes(firstUser(e.fields.uid)?.[2] ?? '')).length);
  });
});
