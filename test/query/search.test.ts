import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL, type ApiKeyPrincipal, type Scope } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';
import { isSvcError } from '../../src/errors/svc-error.js';

/**
 * Search semantics through the real storage engine (half the events sealed into blocks, half live),
 * each answer checked against what the test computes itself from the same events.
 */
const T0 = Date.UTC(2024, 4, 1, 0, 0, 0);
const MESSAGES = [
  'Error: disk full on /dev/sda1',
  'errors happen sometimes',
  'ERROR connection refused by 10.0.0.1',
  'xerror is not a match',
  'error_code=7 is one token',
  'GET /index.html 200 from 10.0.0.12',
  'connection   refused twice',
  "user o'brien logged in",
  'took 1500ms for "quoted" stuff',
  'path C:\\temp\\x backslash',
  'semicolon; DROP TABLE events; --',
  'Connection Refused (upper case)',
  // the first occurrence after a space is not the token, a later one is (and the reverse)
  'some errors;Error at the end',
  'Errors erroring ERROR_x xerror',
];
const HOSTS = ['web-1', 'web-2', 'db-1'];

function makeEvents(n: number): LogEvent[] {
  const out: LogEvent[] = [];
  for (let i = 0; i < n; i++) {
    const fields: LogEvent['fields'] = { seq: i, code: String([200, 404, 500, 503][i % 4]), ratio: i / 8 };
    if (i % 5 === 0) fields.user = i % 10 === 0 ? 'alice' : 'Bob';
    if (i % 7 === 0) fields['id.orig_h'] = `10.0.0.${i % 3}`;
    out.push({
      timeUs: (T0 + i * 60_000) * 1000,
      env: i % 9 === 0 ? 'other' : 'default',
      index: i % 2 === 0 ? 'web' : 'app',
      host: HOSTS[i % 3],
      source: 'test',
      sourcetype: 'unit',
      message: `${MESSAGES[i % MESSAGES.length]} #${i}`,
      fields,
    });
  }
  return out;
}

const EVENTS = makeEvents(600);
const DEFAULT = EVENTS.filter((e) => e.env === 'default');

/** The test's own whole-token rule: no letter, digit or _ directly around the match. */
function hasToken(message: string, term: string): boolean {
  const m = message.toLowerCase();
  const t = term.toLowerCase();
  for (let i = m.indexOf(t); i >= 0; i = m.indexOf(t, i + 1)) {
    const before = m[i - 1];
    const after = m[i + t.length];
    const word = (c: string | undefined) => c !== undefined && /[a-z0-9_]/.test(c);
    if ((!word(t[0]) || !word(before)) && (!word(t[t.length - 1]) || !word(after))) return true;
  }
  return false;
}

function principal(envs: string[], indexes: string[] = ['*']): ApiKeyPrincipal {
  return {
    kind: 'api_key',
    id: 'k',
    name: 'k',
    scopes: new Set<Scope>(['standard']),
    allow: { envs, indexes, tools: [] },
    createdBy: 'test',
  };
}

describe('search semantics over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const count = async (q: string, extra: Record<string, string> = {}) =>
    (await svc.search(SYSTEM_PRINCIPAL, { q, limit: 1, ...extra })).meta.matched;
  const table = async (q: string, extra: Record<string, string> = {}) => svc.search(SYSTEM_PRINCIPAL, { q, ...extra });

  before(async () => {
    st = await openStorage();
    st.control.setEnv('other');
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    // the first half in sealed blocks, the rest live
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(async () => {
    await st.close();
  });

  for (const term of ['error', 'ERROR', 'refused', '10.0.0.1', 'error_code', 'sda1', 'dev', 'o', 'TABLE']) {
    it(`matches the term ${JSON.stringify(term)} as a whole token, case-insensitively`, async () => {
      assert.equal(await count(term), DEFAULT.filter((e) => hasToken(e.message, term)).length);
    });
  }

  it('matches a phrase as a contiguous run of tokens', async () => {
    assert.equal(
      await count('"connection refused"'),
      DEFAULT.filter((e) => hasToken(e.message, 'connection refused')).length,
    );
    assert.ok((await count('"connection refused"')) > 0);
  });

  it('matches a trailing wildcard against token prefixes', async () => {
    const expect = DEFAULT.filter((e) => /(^|[^a-z0-9_])err[a-z0-9_]*/.test(e.message.toLowerCase())).length;
    assert.equal(await count('err*'), expect);
  });

  it('combines AND, OR, NOT and -term', async () => {
    const has = (e: LogEvent, t: string) => hasToken(e.message, t);
    assert.equal(await count('error refused'), DEFAULT.filter((e) => has(e, 'error') && has(e, 'refused')).length);
    assert.equal(await count('error OR refused'), DEFAULT.filter((e) => has(e, 'error') || has(e, 'refused')).length);
    assert.equal(await count('refused NOT error'), DEFAULT.filter((e) => has(e, 'refused') && !has(e, 'error')).length);
    assert.equal(await count('refused -error'), DEFAULT.filter((e) => has(e, 'refused') && !has(e, 'error')).length);
    assert.equal(
      await count('(error OR errors) host=web-1'),
      DEFAULT.filter((e) => (has(e, 'error') || has(e, 'errors')) && e.host === 'web-1').length,
    );
  });

  it('filters fields by value, wildcard, case-insensitive equality and numeric comparison', async () => {
    assert.equal(await count('host=web-1'), DEFAULT.filter((e) => e.host === 'web-1').length);
    assert.equal(await count('host:WEB*'), DEFAULT.filter((e) => e.host.startsWith('web')).length);
    assert.equal(
      await count('user=bob'),
      DEFAULT.filter((e) => String(e.fields.user ?? '').toLowerCase() === 'bob').length,
    );
    assert.equal(
      await count('user!=bob'),
      DEFAULT.filter((e) => e.fields.user !== undefined && e.fields.user !== 'Bob').length,
    );
    assert.equal(await count('NOT user=bob'), DEFAULT.filter((e) => e.fields.user !== 'Bob').length);
    // code is stored as text: numeric comparisons still work
    assert.equal(await count('code>=500'), DEFAULT.filter((e) => Number(e.fields.code) >= 500).length);
    assert.equal(await count('code=404'), DEFAULT.filter((e) => e.fields.code === '404').length);
    assert.equal(
      await count('seq<100 seq>=10'),
      DEFAULT.filter((e) => Number(e.fields.seq) < 100 && Number(e.fields.seq) >= 10).length,
    );
    assert.equal(await count('ratio>10.5'), DEFAULT.filter((e) => Number(e.fields.ratio) > 10.5).length);
    assert.equal(await count('id.orig_h=10.0.0.1'), DEFAULT.filter((e) => e.fields['id.orig_h'] === '10.0.0.1').length);
    assert.equal(await count('user=*'), DEFAULT.filter((e) => e.fields.user !== undefined).length);
    assert.equal(await count('index=web'), DEFAULT.filter((e) => e.index === 'web').length);
    assert.equal(
      await count('index=WE* error'),
      DEFAULT.filter((e) => e.index === 'web' && hasToken(e.message, 'error')).length,
    );
    assert.equal(await count('index=nosuch'), 0);
    assert.equal(await count('index=web OR index=app'), DEFAULT.length);
  });

  it('counts by group like the test does', async () => {
    const r = await table('* | stats count by index, host');
    const expect = new Map<string, number>();
    for (const e of DEFAULT) expect.set(`${e.index}|${e.host}`, (expect.get(`${e.index}|${e.host}`) ?? 0) + 1);
    assert.deepEqual(r.columns, ['index', 'host', 'count']);
    assert.deepEqual(new Map(r.rows!.map((row) => [`${String(row[0])}|${String(row[1])}`, row[2]])), expect);
    assert.equal(r.meta.matched, DEFAULT.length);
  });

  it('aggregates sum, avg, min, max, dc and values', async () => {
    const r = await table(
      'host=db-1 | stats sum(seq) as s, avg(seq), min(seq), max(seq), dc(code), values(code) as codes',
    );
    const seqs = DEFAULT.filter((e) => e.host === 'db-1').map((e) => Number(e.fields.seq));
    const codes = [...new Set(DEFAULT.filter((e) => e.host === 'db-1').map((e) => String(e.fields.code)))].sort();
    const sum = seqs.reduce((a, b) => a + b, 0);
    assert.deepEqual(r.columns, ['s', 'avg(seq)', 'min(seq)', 'max(seq)', 'dc(code)', 'codes']);
    assert.deepEqual(r.rows, [[sum, sum / seqs.length, Math.min(...seqs), Math.max(...seqs), codes.length, codes]]);
  });

  it('counts over all allowed envs with env=* and by index', async () => {
    const r = await table('* | stats count by env', { env: '*' });
    assert.deepEqual(r.rows, [
      ['default', DEFAULT.length],
      ['other', EVENTS.length - DEFAULT.length],
    ]);
  });

  it('restricts to the from/to range and to earliest/latest', async () => {
    const from = new Date(T0 + 100 * 60_000).toISOString();
    const to = new Date(T0 + 200 * 60_000).toISOString();
    const inRange = DEFAULT.filter(
      (e) => e.timeUs >= (T0 + 100 * 60_000) * 1000 && e.timeUs < (T0 + 200 * 60_000) * 1000,
    );
    assert.equal(await count('*', { from, to }), inRange.length);
    assert.equal(await count(`earliest=${from} latest=${to}`), inRange.length);
    assert.equal(
      await count(`earliest=${from} latest=${to} error`),
      inRange.filter((e) => hasToken(e.message, 'error')).length,
    );
  });

  it('returns the newest events first, up to limit, with their fields', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: 'error', limit: 5 });
    const expect = DEFAULT.filter((e) => hasToken(e.message, 'error'))
      .sort((a, b) => b.timeUs - a.timeUs)
      .slice(0, 5);
    assert.deepEqual(
      r.events.map((e) => e.message),
      expect.map((e) => e.message),
    );
    assert.equal(r.events[0].time, new Date(expect[0].timeUs / 1000).toISOString().replace('.000Z', '.000000Z'));
    assert.equal(r.events[0].fields.seq, expect[0].fields.seq);
    assert.equal(r.meta.matched, DEFAULT.filter((e) => hasToken(e.message, 'error')).length);
  });

  it('applies where, eval, rex, sort, head, table', async () => {
    const r = await table(
      'took | rex "#(?<n>\\d+)" | eval double=n * 2 | where double > 100 | sort -double | head 3 | table n double',
    );
    const expect = DEFAULT.filter((e) => hasToken(e.message, 'took'))
      .map((e) => Number(/#(\d+)/.exec(e.message)![1]))
      .filter((n) => n * 2 > 100)
      .sort((a, b) => b - a)
      .slice(0, 3);
    assert.deepEqual(r.columns, ['n', 'double']);
    assert.deepEqual(
      r.rows,
      expect.map((n) => [String(n), n * 2]),
    );
  });

  it('answers top, rare and dedup', async () => {
    const top = await table('* | top 2 code');
    const counts = new Map<string, number>();
    for (const e of DEFAULT) counts.set(String(e.fields.code), (counts.get(String(e.fields.code)) ?? 0) + 1);
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(
      top.rows!.map((r) => [r[0], r[1]]),
      sorted.slice(0, 2),
    );
    const rare = await table('* | rare 1 code');
    assert.deepEqual(
      rare.rows!.map((r) => [r[0], r[1]]),
      [...sorted].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 1),
    );
    const dedup = await svc.search(SYSTEM_PRINCIPAL, { q: '* | dedup host', limit: 10 });
    assert.equal(dedup.events.length, HOSTS.length);
    const dedup2 = await svc.search(SYSTEM_PRINCIPAL, { q: '* | dedup 2 host', limit: 100 });
    const perHost = HOSTS.map((h) => Math.min(2, DEFAULT.filter((e) => e.host === h).length));
    assert.equal(
      dedup2.events.length,
      perHost.reduce((a, b) => a + b, 0),
    );
    for (const h of HOSTS) assert.ok(dedup2.events.filter((e) => e.host === h).length <= 2);
  });

  it('answers top by a field with the top values of each group, percent within the group', async () => {
    const r = await table('* | top 2 code by host');
    assert.deepEqual(r.columns, ['host', 'code', 'count', 'percent']);
    const expected: [string, string, number][] = [];
    for (const host of [...new Set(DEFAULT.map((e) => e.host))].sort()) {
      const counts = new Map<string, number>();
      for (const e of DEFAULT.filter((x) => x.host === host))
        counts.set(String(e.fields.code), (counts.get(String(e.fields.code)) ?? 0) + 1);
      const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 2);
      for (const [code, n] of ranked) expected.push([host, code, n]);
    }
    assert.deepEqual(
      r.rows!.map((row) => [row[0], row[1], row[2]]),
      expected,
    );
    const firstHost = expected[0][0];
    const hostTotal = DEFAULT.filter((e) => e.host === firstHost).length;
    assert.ok(Math.abs((r.rows![0][3] as number) - (100 * expected[0][2]) / hostTotal) < 1e-9);
  });

  it('fills timechart buckets and pivots by a field', async () => {
    const r = await table('* | timechart span=1h count by host');
    assert.deepEqual(r.columns, ['_time', 'db-1', 'web-1', 'web-2']);
    const hours = new Set(DEFAULT.map((e) => Math.floor(e.timeUs / 3_600_000_000)));
    assert.equal(r.rows!.length, Math.max(...hours) - Math.min(...hours) + 1);
    const total = r.rows!.reduce((s, row) => s + (row[1] as number) + (row[2] as number) + (row[3] as number), 0);
    assert.equal(total, DEFAULT.length);
  });

  it('treats quotes, backslashes and SQL in user strings as plain text', async () => {
    assert.equal(await count("o'brien"), DEFAULT.filter((e) => hasToken(e.message, "o'brien")).length);
    assert.ok((await count("o'brien")) > 0);
    assert.equal(await count('"\\"quoted\\""'), DEFAULT.filter((e) => e.message.includes('"quoted"')).length);
    assert.equal(await count('"C:\\temp\\x"'), DEFAULT.filter((e) => e.message.includes('C:\\temp\\x')).length);
    assert.ok((await count('"C:\\temp\\x"')) > 0);
    assert.equal(
      await count('"DROP TABLE events; --"'),
      DEFAULT.filter((e) => e.message.includes('DROP TABLE events; --')).length,
    );
    assert.equal(await count(`host="x'); DROP TABLE t; --"`), 0);
    assert.equal(await count(`* | where host = "'; SELECT 1; --"`), 0);
    assert.equal(await count(`* | eval "x""y"=1 | where 'a"b' = "c'd"`).catch(() => -1), -1);
    assert.equal(await count(`* | eval 'x"; DROP TABLE t; --'=1 | where 'x"; DROP TABLE t; --' = 1`), DEFAULT.length);
    const rex = await table(`* | rex "(?<who>o'brien)" | stats count by who`);
    assert.deepEqual(rex.rows, [["o'brien", DEFAULT.filter((e) => e.message.includes("o'brien")).length]]);
    const r = await table(`* | eval s="it's" | stats count by s`);
    assert.deepEqual(r.rows, [["it's", DEFAULT.length]]);
    assert.equal(await count('*'), DEFAULT.length);
  });

  it('gives a hint when the time range misses the data', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '*', from: '2030-01-01T00:00:00Z' });
    assert.equal(r.meta.matched, 0);
    assert.equal(r.meta.hint?.eventsOutsideRange, DEFAULT.length);
    assert.match(r.meta.hint.message, /widen the time range/);
  });

  it('says that env= in the query filters the env searched, naming the env parameter', async () => {
    const other = EVENTS.length - DEFAULT.length;
    const filtered = await svc.search(SYSTEM_PRINCIPAL, { q: 'env=other' });
    assert.equal(filtered.meta.matched, 0);
    assert.match(filtered.meta.hint!.message, /env=other in a query only filters the events of env "default"/);
    assert.match(filtered.meta.hint!.message, /env parameter/);
    // the filter keeps its meaning where the env is searched: env=* reaches it, as does env=other
    assert.equal(await count('env=other', { env: '*' }), other);
    assert.equal(await count('env=other', { env: 'other' }), other);
    // an env filter the searched env meets still gets the ordinary hint
    const none = await svc.search(SYSTEM_PRINCIPAL, { q: 'env=default nosuchterm' });
    assert.match(none.meta.hint!.message, /no events match the query; env "default" holds/);
  });

  it('narrows env=* to the allowed envs and refuses a forbidden one', async () => {
    assert.equal(
      (await svc.search(principal(['default']), { q: '*', env: '*', limit: 1 })).meta.matched,
      DEFAULT.length,
    );
    await assert.rejects(
      svc.search(principal(['default']), { q: '*', env: 'other' }),
      (e) => isSvcError(e) && e.code === 'access_denied',
    );
    const webOnly = await svc.search(principal(['*'], ['web']), { q: '* | stats count by index', env: '*' });
    assert.deepEqual(
      webOnly.rows!.map((r) => r[0]),
      ['web'],
    );
  });

  it('answers a histogram whose buckets add up to the matches', async () => {
    const h = await svc.histogram(SYSTEM_PRINCIPAL, { q: 'error', buckets: 10 });
    const expect = DEFAULT.filter((e) => hasToken(e.message, 'error')).length;
    assert.equal(
      h.buckets.reduce((s, b) => s + b.count, 0),
      expect,
    );
    assert.ok(h.buckets.length <= 10 && h.buckets.length > 0);
  });

  it('lists fields with their top values', async () => {
    const f = await svc.fields(SYSTEM_PRINCIPAL, { q: 'host=web-1', top: 3 });
    const host = f.fields.find((x) => x.name === 'host')!;
    assert.deepEqual(host.top, [{ value: 'web-1', count: DEFAULT.filter((e) => e.host === 'web-1').length }]);
    const user = f.fields.find((x) => x.name === 'user')!;
    assert.equal(user.count, DEFAULT.filter((e) => e.host === 'web-1' && e.fields.user !== undefined).length);
    assert.equal(f.fields.find((x) => x.name === 'seq')!.type, 'number');
  });
});
