import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * Quoted field names in pipe lists and the sort functions num(), str() and ip(), through the real
 * storage engine (half the events sealed, half live); every answer is computed here from the events.
 */
const T0 = Date.UTC(2024, 4, 1, 0, 0, 0);
const NAMES = ['Ann Lee', 'bob', 'Carl'];
const N = 240;

function makeEvents(): LogEvent[] {
  const out: LogEvent[] = [];
  for (let i = 0; i < N; i++) {
    const fields: LogEvent['fields'] = { seq: i, 'id.orig_h': `10.0.${i % 5}.${i % 7}` };
    if (i % 4 !== 0) fields['user name'] = NAMES[i % 3];
    // addresses whose text order differs from their address order (10.0.1.2 < 10.0.1.10)
    fields['src ip'] = i % 6 === 0 ? 'unknown' : `10.0.${i % 3}.${(i * 7) % 12}`;
    // text holding numbers, so numeric and text order differ ("95" > "120" as text)
    fields.size = i % 5 === 0 ? 'n/a' : String((i * 37) % 1000);
    out.push({
      timeUs: (T0 + i * 60_000) * 1000,
      env: 'default',
      index: 'main',
      host: `h${i % 2}`,
      source: 't',
      sourcetype: 'unit',
      message: `event ${i}`,
      fields,
    });
  }
  return out;
}

const EVENTS = makeEvents();
const NEWEST_FIRST = [...EVENTS].sort((a, b) => b.timeUs - a.timeUs);
const str = (e: LogEvent, f: string) => (e.fields[f] === undefined ? undefined : String(e.fields[f]));

function countBy(f: string): [string, number][] {
  const m = new Map<string, number>();
  for (const e of EVENTS) if (str(e, f) !== undefined) m.set(str(e, f)!, (m.get(str(e, f)!) ?? 0) + 1);
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** An IPv4 address as a number, undefined for anything else. */
function ipNumber(s: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  return m ? m.slice(1).reduce((acc, o) => acc * 256 + Number(o), 0) : undefined;
}

/** Ascending comparison with nulls first, as the sort pipe orders ascending keys. */
function nullsFirst<T extends string | number>(a: T | undefined, b: T | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

describe('quoted field names and sort functions over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const table = async (q: string) => svc.search(SYSTEM_PRINCIPAL, { q });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(async () => {
    await st.close();
  });

  it('groups stats by a quoted name with a space', async () => {
    const r = await table('* | stats count by "user name"');
    assert.deepEqual(r.columns, ['user name', 'count']);
    assert.deepEqual(r.rows, countBy('user name'));
  });

  it('charts by a quoted name with a space, one column per value', async () => {
    const r = await table('* | timechart span=1h count by "user name"');
    assert.deepEqual(r.columns, ['_time', ...NAMES.slice().sort()]);
    const perHour = new Map<string, Map<string, number>>();
    for (const e of EVENTS) {
      const name = str(e, 'user name');
      if (name === undefined) continue;
      const hour = new Date(Math.floor(e.timeUs / 3_600_000_000) * 3_600_000).toISOString();
      const m = perHour.get(hour) ?? new Map<string, number>();
      m.set(name, (m.get(name) ?? 0) + 1);
      perHour.set(hour, m);
    }
    const total = (col: number) => r.rows!.reduce((n, row) => n + Number(row[col] ?? 0), 0);
    NAMES.slice()
      .sort()
      .forEach((name, i) => assert.equal(total(i + 1), countBy('user name').find(([n]) => n === name)![1], name));
    assert.equal(r.rows!.length, perHour.size);
  });

  it('reads a quoted dotted name like the bare one', async () => {
    const quoted = await table('* | stats count by "id.orig_h"');
    const bare = await table('* | stats count by id.orig_h');
    assert.deepEqual(quoted.rows, countBy('id.orig_h'));
    assert.deepEqual(quoted.rows, bare.rows);
  });

  it('tables quoted names in the current order', async () => {
    const r = await table('* | head 5 | table _time, "user name", "src ip"');
    assert.deepEqual(r.columns, ['_time', 'user name', 'src ip']);
    assert.deepEqual(
      r.rows!.map((row) => [row[1], row[2]]),
      NEWEST_FIRST.slice(0, 5).map((e) => [str(e, 'user name') ?? null, str(e, 'src ip')]),
    );
  });

  it('keeps and drops quoted names with fields', async () => {
    const kept = await svc.search(SYSTEM_PRINCIPAL, { q: '* | fields "user name", seq', limit: 4 });
    assert.deepEqual(
      kept.events.map((e) => e.fields),
      NEWEST_FIRST.slice(0, 4).map((e) => ({
        ...(e.fields['user name'] === undefined ? {} : { 'user name': e.fields['user name'] }),
        seq: e.fields.seq,
      })),
    );
    const dropped = await svc.search(SYSTEM_PRINCIPAL, { q: '* | fields - "user name", "src ip", id.*', limit: 4 });
    assert.deepEqual(
      dropped.events.map((e) => Object.keys(e.fields).sort()),
      NEWEST_FIRST.slice(0, 4).map(() => ['seq', 'size']),
    );
  });

  it('dedups on a quoted name, keeping the newest of each value', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '* | dedup "user name"', limit: 100 });
    const expect = NAMES.map((n) => NEWEST_FIRST.find((e) => e.fields['user name'] === n)!).sort(
      (a, b) => b.timeUs - a.timeUs,
    );
    assert.deepEqual(
      r.events.map((e) => e.fields.seq),
      expect.map((e) => e.fields.seq),
    );
  });

  it('counts top values of a quoted name by another quoted name', async () => {
    const r = await table('* | top 1 "user name" by "src ip"');
    assert.deepEqual(r.columns, ['src ip', 'user name', 'count', 'percent']);
    const groups = new Map<string, Map<string, number>>();
    for (const e of EVENTS) {
      const ip = str(e, 'src ip')!;
      const name = str(e, 'user name');
      if (name === undefined) continue;
      if (!groups.has(ip)) groups.set(ip, new Map());
      groups.get(ip)!.set(name, (groups.get(ip)!.get(name) ?? 0) + 1);
    }
    const expect = [...groups.keys()].sort().map((ip) => {
      const [name, n] = [...groups.get(ip)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      return [ip, name, n];
    });
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 3)),
      expect,
    );
  });

  it('sorts descending by a quoted name', async () => {
    const r = await table('* | sort -"user name", seq | table seq "user name"');
    const expect = [...EVENTS].sort(
      (a, b) => -nullsFirst(str(a, 'user name'), str(b, 'user name')) || Number(a.fields.seq) - Number(b.fields.seq),
    );
    assert.deepEqual(
      r.rows,
      expect.map((e) => [e.fields.seq, str(e, 'user name') ?? null]),
    );
  });

  it('sorts text holding numbers numerically with num(), non-numbers as null', async () => {
    const num = (e: LogEvent) => (str(e, 'size') === 'n/a' ? undefined : Number(str(e, 'size')));
    const desc = await table('* | sort -num(size), seq | head 10 | table seq size');
    const expectDesc = [...EVENTS].sort(
      (a, b) => -nullsFirst(num(a), num(b)) || Number(a.fields.seq) - Number(b.fields.seq),
    );
    assert.deepEqual(
      desc.rows,
      expectDesc.slice(0, 10).map((e) => [e.fields.seq, str(e, 'size')]),
    );
    const asc = await table('* | sort num(size), seq | table seq size');
    const expectAsc = [...EVENTS].sort(
      (a, b) => nullsFirst(num(a), num(b)) || Number(a.fields.seq) - Number(b.fields.seq),
    );
    assert.deepEqual(
      asc.rows,
      expectAsc.map((e) => [e.fields.seq, str(e, 'size')]),
    );
  });

  it('sorts numbers as text with str()', async () => {
    const r = await table('* | sort str(size), -seq | table seq size');
    const expect = [...EVENTS].sort(
      (a, b) => nullsFirst(str(a, 'size'), str(b, 'size')) || Number(b.fields.seq) - Number(a.fields.seq),
    );
    assert.deepEqual(
      r.rows,
      expect.map((e) => [e.fields.seq, str(e, 'size')]),
    );
    // the data makes the two orders differ, so the test above is not the numeric order by chance
    const numeric = await table('* | sort num(size), -seq | table seq size');
    assert.notDeepEqual(r.rows, numeric.rows);
  });

  it('sorts addresses with ip(), other values with the nulls', async () => {
    const key = (e: LogEvent) => ipNumber(str(e, 'src ip')!);
    const r = await table('* | sort ip("src ip"), seq | table seq "src ip"');
    const expect = [...EVENTS].sort(
      (a, b) => nullsFirst(key(a), key(b)) || Number(a.fields.seq) - Number(b.fields.seq),
    );
    assert.deepEqual(
      r.rows,
      expect.map((e) => [e.fields.seq, str(e, 'src ip')]),
    );
    const text = await table('* | sort str("src ip"), seq | table seq "src ip"');
    assert.notDeepEqual(r.rows, text.rows);
  });

  it('keeps the first N rows of a sort function order', async () => {
    const r = await table('* | sort 3 -ip("src ip"), -seq | table seq "src ip"');
    const expect = [...EVENTS].sort(
      (a, b) =>
        -nullsFirst(ipNumber(str(a, 'src ip')!), ipNumber(str(b, 'src ip')!)) ||
        Number(b.fields.seq) - Number(a.fields.seq),
    );
    assert.deepEqual(
      r.rows,
      expect.slice(0, 3).map((e) => [e.fields.seq, str(e, 'src ip')]),
    );
  });
});
