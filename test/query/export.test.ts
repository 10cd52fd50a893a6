import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCsv } from '../helpers/csv.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';
import type { EventJson, SearchResult } from '../../src/query/types.js';

/**
 * GET /api/export against a real server: CSV and NDJSON downloads compared row for row with
 * /api/search's answer to the same query, over generated events shaped like real logs (text and
 * JSON, awkward characters, sparse and nested fields, many events per second) and, when present,
 * real files.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REAL = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const APACHE = join(REAL, 'elastic-examples-apache/apache_access_combined.log');
const ZEEK = join(REAL, 'zeek-wrccdc-json/smtp.json');

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const T0 = Date.UTC(2025, 3, 2, 9, 0, 0);
const N_GEN = 6000;

/** NDJSON lines shaped like real application logs. */
function generated(): string[] {
  const r = rng(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const users = ['alice', 'bob', "o'brien", 'Zoë', 'smith, john', 'say "hi"', '李雷', 'emoji 🚀', ' padded '];
  const lines: string[] = [];
  for (let i = 0; i < N_GEN; i++) {
    // many events share a second; some carry microseconds
    const ms = T0 + Math.floor(i / 4) * 1000 + (i % 3 === 0 ? 0 : Math.floor(r() * 1000));
    const time =
      i % 3 === 0
        ? new Date(ms).toISOString().replace('.000Z', 'Z')
        : new Date(ms).toISOString().replace('Z', `${String(Math.floor(r() * 1000)).padStart(3, '0')}Z`);
    const status = pick([200, 200, 200, 201, 304, 404, 500, 503]);
    const o: Record<string, unknown> = {
      time,
      host: `web-${i % 5}`,
      source: i % 2 ? '/var/log/app.log' : 'stdin',
      message: pick([
        `GET /api/items?id=${i} ${status}`,
        `user ${pick(users)} logged in`,
        `multi\nline\r\nmessage ${i}`,
        `quoted "value", with comma`,
        `  leading space ${i}`,
      ]),
      status,
      bytes: Math.floor(r() * 100_000),
      duration_ms: Math.round(r() * 10_000) / 100,
      ok: status < 400,
      http: { method: pick(['GET', 'POST']), path: `/p/${i % 17}` },
    };
    if (r() < 0.3) o.user = pick(users);
    if (r() < 0.1) o.tags = [pick(['a', 'b']), i];
    // a field only the oldest events have: a truncated export must not name it
    if (i < 50) o.legacy_id = `L${i}`;
    lines.push(JSON.stringify(o));
  }
  return lines;
}

/** An event as the test writes it into CSV: the columns then each field as JSON shows it, text that a spreadsheet would run as a formula after a `'`. */
function csvRowOf(e: EventJson, fields: string[]): string[] {
  const text = (v: unknown) =>
    v === undefined || v === null
      ? ''
      : typeof v === 'string'
        ? /^[=+\-@\t\r]/.test(v)
          ? `'${v}`
          : v
        : JSON.stringify(v);
  return [e.time, e.env, e.index, e.host, e.source, e.sourcetype, e.message, ...fields.map((f) => text(e.fields[f]))];
}

const sortedJson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
const CORE = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'];

describe('export', () => {
  let srv: TestServer;
  let admin: string;
  const realPresent = existsSync(APACHE) && existsSync(ZEEK);

  async function ingest(env: string, index: string, body: string, type: string): Promise<void> {
    const token = await createIngestToken(srv, { env, index });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body,
    });
    const answer = (await res.json()) as { errors: number };
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.equal(answer.errors, 0);
  }

  const exportOf = async (params: Record<string, string>, token = admin) => {
    const res = await fetch(`${srv.url}/api/export?${new URLSearchParams(params)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { res, text: await res.text() };
  };
  const search = async (params: Record<string, string>): Promise<SearchResult> => {
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ limit: '10000', ...params })}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(res.status, 200);
    return (await res.json()) as SearchResult;
  };

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    const lines = generated();
    await ingest('default', 'gen', lines.slice(0, N_GEN / 2).join('\n'), 'application/x-ndjson');
    await srv.deps.storage.flush();
    await ingest('default', 'gen', lines.slice(N_GEN / 2).join('\n'), 'application/x-ndjson');
    await ingest('prod', 'gen', lines.slice(0, 10).join('\n'), 'application/x-ndjson');
    if (realPresent) {
      await ingest('default', 'apache', readFileSync(APACHE, 'utf8'), 'text/plain');
      await ingest('default', 'zeek', readFileSync(ZEEK, 'utf8'), 'application/x-ndjson');
    }
  });
  after(async () => {
    await srv.close();
  });

  /** Exports `params` as CSV and NDJSON and compares both with /api/search's events for the same query. */
  async function assertEventsMatchSearch(params: Record<string, string>, max?: number): Promise<number> {
    const s = await search({ ...params, ...(max ? { limit: String(max) } : {}) });
    assert.equal(s.columns, undefined);
    assert.ok(s.events.length > 0, 'the query finds events');
    const extra: Record<string, string> = max ? { max: String(max) } : {};
    const csv = await exportOf({ ...params, format: 'csv', ...extra });
    assert.equal(csv.res.status, 200, csv.text.slice(0, 300));
    const [header, ...rows] = parseCsv(csv.text);
    const fields = [
      ...new Set(
        s.events.flatMap((e) =>
          Object.entries(e.fields)
            .filter(([, v]) => v !== null)
            .map(([k]) => k),
        ),
      ),
    ].sort();
    assert.deepEqual(
      header,
      [...CORE, ...fields],
      'the header: the core columns, then the fields some exported event has, by name',
    );
    assert.equal(rows.length, s.events.length);
    // newest first, like search; the order among events of one time is not part of either answer
    assert.deepEqual(
      rows.map((r) => r[0]),
      s.events.map((e) => e.time),
    );
    assert.deepEqual(sortedJson(rows), sortedJson(s.events.map((e) => csvRowOf(e, fields))));
    const nd = await exportOf({ ...params, format: 'ndjson', ...extra });
    assert.equal(nd.res.status, 200);
    assert.ok(nd.text.endsWith('\n'));
    const objs = nd.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as EventJson);
    assert.deepEqual(
      objs.map((e) => e.time),
      s.events.map((e) => e.time),
    );
    assert.deepEqual(sortedJson(objs), sortedJson(s.events));
    return rows.length;
  }

  it('exports the generated events as CSV and NDJSON, row for row as search answers them', async () => {
    assert.equal(await assertEventsMatchSearch({ q: '*', index: 'gen' }), N_GEN);
  });

  it('exports a filtered search and an event pipeline the same way', async () => {
    await assertEventsMatchSearch({ q: 'status>=500 OR user="smith, john"', index: 'gen' });
    await assertEventsMatchSearch({
      q: 'logged | eval kb=round(bytes / 1024, 1) | where kb > 20 | fields host, user, kb',
      index: 'gen',
    });
  });

  it('exports real logs the same way', { skip: realPresent ? false : `no real data at ${REAL}` }, async () => {
    assert.equal(await assertEventsMatchSearch({ q: '*', index: 'apache' }), 10_000);
    await assertEventsMatchSearch({ q: '*', index: 'zeek' });
    await assertEventsMatchSearch({ q: 'GET "Googlebot"', index: 'apache' });
  });

  it('takes the documented maximum, max=1000000, and exports every match', async () => {
    const nd = await exportOf({ q: '*', index: 'gen', format: 'ndjson', max: '1000000' });
    assert.equal(nd.res.status, 200, nd.text.slice(0, 300));
    assert.equal(nd.text.split('\n').filter(Boolean).length, N_GEN);
  });

  it('truncates at max, keeping the newest and naming only their fields', async () => {
    assert.equal(await assertEventsMatchSearch({ q: '*', index: 'gen' }, 100), 100);
    const csv = await exportOf({ q: '*', index: 'gen', format: 'csv', max: '100' });
    assert.equal(csv.res.headers.get('x-svc-export-max'), '100');
    assert.ok(!parseCsv(csv.text)[0].includes('legacy_id'), 'a field only older events have is not a column');
    const all = parseCsv((await exportOf({ q: '*', index: 'gen', format: 'csv' })).text)[0];
    assert.ok(all.includes('legacy_id') && all.includes('http.method') && all.includes('tags'));
    const headN = await exportOf({ q: 'error OR * | head 7', index: 'gen', format: 'ndjson', max: '5' });
    assert.equal(headN.text.split('\n').filter(Boolean).length, 5);
  });

  it('exports a table with its columns and all its rows', async () => {
    for (const q of [
      '* | stats count, avg(bytes) as avg_bytes, values(status) by host, ok',
      '* | timechart span=10m count by status',
      '* | top 3 user by host',
      '* | table _time host user',
    ]) {
      const s = await search({ q, index: 'gen' });
      assert.ok(s.columns && s.rows && s.rows.length > 0, q);
      const csv = await exportOf({ q, index: 'gen', format: 'csv' });
      const [header, ...rows] = parseCsv(csv.text);
      assert.deepEqual(header, s.columns, q);
      const text = (v: unknown) => (v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
      const want = s.rows.map((r) => r.map(text));
      // `table` keeps the event order, where events of one time may come in any order
      if (q.includes('| table')) assert.deepEqual(sortedJson(rows), sortedJson(want), q);
      else assert.deepEqual(rows, want, q);
      const nd = (await exportOf({ q, index: 'gen', format: 'ndjson' })).text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const objs = s.rows.map((r) => Object.fromEntries(s.columns!.map((c, i) => [c, r[i]])));
      if (q.includes('| table')) assert.deepEqual(sortedJson(nd), sortedJson(objs), q);
      else assert.deepEqual(nd, objs, q);
    }
  });

  it('sends download headers', async () => {
    const { res } = await exportOf({ q: '* | head 1', index: 'gen', format: 'csv' });
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(res.headers.get('content-disposition')!, /^attachment; filename="svc-export-\d{8}-\d{6}\.csv"$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-svc-export-max'), '100000');
    const nd = await exportOf({ q: '* | head 1', index: 'gen', format: 'ndjson' });
    assert.equal(nd.res.headers.get('content-type'), 'application/x-ndjson');
    assert.match(nd.res.headers.get('content-disposition')!, /filename="svc-export-\d{8}-\d{6}\.ndjson"/);
  });

  it('writes text that a spreadsheet would run as a formula with a leading quote, and numbers as they are (OWASP CSV injection)', async () => {
    const cells = ["=cmd|' /C calc'!A0", '+1+1', '@SUM(A1)', '-2+3', '\tTAB', '\rCR', '=HYPERLINK("http://x","y")'];
    const lines = cells.map((message, i) =>
      JSON.stringify({
        time: new Date(T0 + i * 1000).toISOString(),
        message,
        note: message,
        n: -5 - i,
        host: i === 0 ? '=evil' : 'ok',
      }),
    );
    await ingest('default', 'formula', lines.join('\n'), 'application/x-ndjson');
    const [header, ...rows] = parseCsv((await exportOf({ q: '*', index: 'formula', format: 'csv' })).text);
    assert.deepEqual(header, [...CORE, 'n', 'note']);
    const byN = new Map(rows.map((r) => [r[7], r]));
    cells.forEach((c, i) => {
      const r = byN.get(String(-5 - i))!;
      assert.equal(r[6], `'${c}`, `message ${JSON.stringify(c)}`);
      assert.equal(r[8], `'${c}`, `field ${JSON.stringify(c)}`);
    });
    assert.equal(byN.get('-5')![3], "'=evil");
    // a table's cells too; its numbers (-5) stay numbers
    const table = parseCsv(
      (await exportOf({ q: '* | stats count by note, n | sort n', index: 'formula', format: 'csv' })).text,
    );
    assert.deepEqual(table[0], ['note', 'n', 'count']);
    assert.deepEqual(
      table.slice(1).map((r) => [r[0], r[1]]),
      cells.map((c, i) => [`'${c}`, String(-5 - i)]).reverse(),
    );
    // NDJSON carries the values unchanged
    const nd = (await exportOf({ q: '*', index: 'formula', format: 'ndjson' })).text
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as EventJson).message);
    assert.deepEqual(nd.sort(), [...cells].sort());
  });

  it('answers a header row alone when nothing matches', async () => {
    const csv = await exportOf({ q: 'no_such_token_anywhere', index: 'gen', format: 'csv' });
    assert.equal(csv.res.status, 200);
    assert.equal(csv.text, `${CORE.join(',')}\r\n`);
    assert.equal((await exportOf({ q: 'no_such_token_anywhere', index: 'gen', format: 'ndjson' })).text, '');
  });

  it('rejects a bad format, max or query with a JSON 400 before any byte of the file', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ q: '*', format: 'xlsx' }, 'invalid_input', 'format'],
      [{ q: '*' }, 'invalid_input', 'format'],
      [{ q: '*', format: 'csv', max: '0' }, 'invalid_input', 'max'],
      [{ q: '*', format: 'csv', max: '1000001' }, 'invalid_input', 'max'],
      [{ q: '*', format: 'csv', max: 'lots' }, 'invalid_input', 'max'],
      [{ q: '* | stats avg', format: 'csv' }, 'invalid_query', ''],
      [{ q: '*', format: 'csv', from: 'yesterday' }, 'invalid_time', ''],
    ];
    for (const [params, code, field] of cases) {
      const { res, text } = await exportOf(params);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.match(res.headers.get('content-type')!, /^application\/json/);
      const body = JSON.parse(text) as { error: { code: string; field?: string } };
      assert.deepEqual([body.error.code, body.error.field ?? ''], [code, field], JSON.stringify(params));
    }
  });

  it('refuses an env or index the caller may not read with 403, and narrows env=*', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['default'], indexes: ['gen'] } });
    for (const params of [{ env: 'prod' }, { index: 'apache' }] as Record<string, string>[]) {
      const { res, text } = await exportOf({ q: '*', format: 'ndjson', ...params }, key);
      assert.deepEqual(
        [res.status, (JSON.parse(text) as { error: { code: string } }).error.code],
        [403, 'access_denied'],
        JSON.stringify(params),
      );
    }
    const all = await exportOf({ q: '* | stats count by env, index', env: '*', format: 'csv' }, key);
    assert.deepEqual(parseCsv(all.text), [
      ['env', 'index', 'count'],
      ['default', 'gen', String(N_GEN)],
    ]);
  });
});
