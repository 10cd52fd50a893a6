import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';
import type { ExportHead } from '../../src/query/types.js';

/**
 * `patterns` through the real storage engine (half the events in blocks, half live): every answer
 * checked against the templates the test generated its messages from.
 */
const T0 = Date.UTC(2024, 4, 1);
const HOSTS = ['web-1', 'web-2', 'db-1'];
const USERS = ['root', 'admin', 'test', 'oracle', 'guest', 'ubuntu'];

/** Each event's message and the template the test expects for it. */
function message(i: number): [string, string] {
  // more than FEW_VALUES users per host, or each would be a template of its own (merge.ts)
  const u = USERS[Math.floor(i / 3) % USERS.length];
  const ip = `10.${i % 3}.${i % 7}.${i % 11}`;
  if (i % 20 === 19)
    return [
      'Accepted password for <*> from <*> port <*> ssh2',
      `Accepted password for ${u} from ${ip} port ${1000 + i} ssh2`,
    ];
  if (i % 10 < 6)
    return [
      'Failed password for <*> from <*> port <*> ssh2',
      `Failed password for ${u} from ${ip} port ${2000 + i} ssh2`,
    ];
  if (i % 10 < 8) return ['Connection closed by <*> [preauth]', `Connection closed by ${ip} [preauth]`];
  if (i % 10 === 8)
    return ['session opened for user <*> by (uid=<*>)', `session opened for user ${u} by (uid=${i % 3})`];
  // two masked words in a row read as one
  return ['Received disconnect from <*>: Bye Bye [preauth]', `Received disconnect from ${ip}: 11: Bye Bye [preauth]`];
}

const EVENTS: (LogEvent & { template: string })[] = Array.from({ length: 300 }, (_, i) => {
  const [template, text] = message(i);
  const fields: LogEvent['fields'] = i % 4 === 0 ? { detail: `disk ${i % 90}% full on /dev/sd${'abc'[i % 3]}` } : {};
  return {
    timeUs: (T0 + i * 60_000) * 1000,
    env: 'default',
    index: 'main',
    host: HOSTS[i % 3],
    source: 'auth.log',
    sourcetype: 'sshd',
    message: text,
    fields,
    template,
  };
});

const iso = (us: number) => new Date(us / 1000).toISOString().replace('Z', '000Z');

/** The test's own answer: template, count, first and last time, sorted like patterns (count, then template). */
function expected(events: typeof EVENTS, by?: (e: (typeof EVENTS)[number]) => string): unknown[][] {
  const groups = new Map<string, typeof EVENTS>();
  for (const e of events) {
    const key = JSON.stringify([...(by ? [by(e)] : []), e.template]);
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const rows = [...groups].map(([key, es]) => [
    ...(JSON.parse(key) as string[]),
    es.length,
    iso(Math.min(...es.map((e) => e.timeUs))),
    iso(Math.max(...es.map((e) => e.timeUs))),
  ]);
  const k = by ? 1 : 0;
  return rows.sort((a, b) =>
    k && a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : (b[k + 1] as number) - (a[k + 1] as number) || (a[k] < b[k] ? -1 : 1),
  );
}

describe('patterns over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const plain = EVENTS.map(({ template: _, ...e }) => e);
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, plain);
  });
  after(() => st.close());

  it('finds the templates the messages were made from, with their counts, first and last times and a real sample', async () => {
    const r = await search('* | patterns');
    assert.deepEqual(r.columns, ['pattern', 'count', 'first_time', 'last_time', 'sample']);
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 4)),
      expected(EVENTS),
    );
    for (const [pattern, , , , sample] of r.rows!) {
      assert.ok(
        EVENTS.some((e) => e.template === pattern && e.message === sample),
        `${String(sample)} is a message of ${String(pattern)}`,
      );
    }
    assert.equal(r.meta.matched, EVENTS.length);
  });

  it('finds them per group with by, and keeps the most common ones with limit', async () => {
    const r = await search('* | patterns by host');
    assert.deepEqual(r.columns, ['host', 'pattern', 'count', 'first_time', 'last_time', 'sample']);
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 5)),
      expected(EVENTS, (e) => e.host),
    );
    const top = await search('* | patterns by host limit=2');
    const byHost = expected(EVENTS, (e) => e.host);
    assert.deepEqual(
      top.rows!.map((row) => row.slice(0, 5)),
      [...HOSTS].sort().flatMap((h) => byHost.filter((x) => x[0] === h).slice(0, 2)),
    );
  });

  it('reads only the events the search keeps', async () => {
    const r = await search('password host=web-1 | patterns');
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 4)),
      expected(EVENTS.filter((e) => e.host === 'web-1' && e.message.includes('password'))),
    );
  });

  it('makes templates of another field with field=, leaving out events without it', async () => {
    const r = await search('* | patterns field=detail');
    const withDetail = EVENTS.filter((e) => e.fields.detail !== undefined);
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 2)),
      [['disk <*>% full on /dev/<*>', withDetail.length]],
    );
  });

  it('answers without times when an earlier pipe dropped _time', async () => {
    const r = await search('* | table message | patterns limit=1');
    assert.deepEqual(
      r.rows!.map((row) => row.slice(0, 4)),
      [['Failed password for <*> from <*> port <*> ssh2', expected(EVENTS)[0][1], null, null]],
    );
  });

  it('exports the same table', async () => {
    let head: ExportHead | undefined;
    const rows: unknown[][] = [];
    await svc.export(
      SYSTEM_PRINCIPAL,
      { q: '* | patterns' },
      { begin: async (h) => void (head = h), events: async () => undefined, rows: async (b) => void rows.push(...b) },
    );
    const r = await search('* | patterns');
    assert.deepEqual(head, { mode: 'table', columns: r.columns });
    assert.deepEqual(rows, r.rows);
  });
});
