import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createEnv, createIngestToken } from '../helpers/auth.js';
import { runCli, runCliOnPty } from '../helpers/cli.js';
import { parseCsv } from '../helpers/csv.js';
import type { EventJson, SearchResult } from '../../src/query/types.js';

/**
 * `svc search` with each output format, run as a subprocess against a real server and compared
 * with what GET /api/search answers for the same query.
 */
const ENV = 'clifmt';
const EVENT_COLUMNS = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'];
const MESSAGES = [
  'plain text',
  'with, a comma',
  'with "quotes"',
  'two\nlines',
  'CRLF\r\nends',
  'ünïcödé ✓',
  '  leading spaces',
  'x'.repeat(300),
];

const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

describe('svc search', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const cli = (args: string[]) => runCli(['search', ...args], { env: { SVC_URL: srv.url, SVC_TOKEN: admin } });
  const api = async (q: string, limit = 1000) =>
    (await call(srv, 'GET', `/api/search?${new URLSearchParams({ q, env: ENV, limit: String(limit) })}`, {
      token: admin,
    })) as SearchResult;

  before(async () => {
    await createEnv(srv, ENV);
    const token = await createIngestToken(srv, { env: ENV });
    const body = MESSAGES.map((message, i) =>
      JSON.stringify({
        time: `2026-01-01T00:00:0${i}Z`,
        message,
        host: i % 2 ? 'web-1' : 'db,2',
        status: 200 + i,
        ...(i % 3 === 0 ? { user: `u"${i}` } : {}),
      }),
    ).join('\n');
    const res = await fetch(`${srv.url}/api/ingest?index=app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200, await res.text());
  });

  it("writes events as RFC 4180 CSV that parses back into the API's events", async () => {
    const r = await cli(['*', '--env', ENV, '-o', 'csv', '--limit', '1000']);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = parseCsv(r.stdout);
    const events = (await api('*')).events;
    const fields = [...new Set(events.flatMap((e) => Object.keys(e.fields)))].sort();
    assert.deepEqual(header, [...EVENT_COLUMNS, ...fields]);
    assert.deepEqual(
      rows,
      events.map((e) => [
        e.time,
        e.env,
        e.index,
        e.host,
        e.source,
        e.sourcetype,
        e.message,
        ...fields.map((f) => cell(e.fields[f])),
      ]),
    );
    assert.equal(rows.length, MESSAGES.length);
  });

  it("writes a table as CSV equal to the API's columns and rows", async () => {
    const q = '* | stats count, max(status) as top by host | sort host';
    const r = await cli([q, '--env', ENV, '-o', 'csv']);
    assert.equal(r.code, 0, r.stderr);
    const a = await api(q);
    assert.deepEqual(parseCsv(r.stdout), [a.columns, ...a.rows!.map((row) => row.map(cell))]);
  });

  it("prints the API's answer as json", async () => {
    for (const q of ['status>203', '* | stats count by host']) {
      const r = await cli([q, '--env', ENV, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const got = JSON.parse(r.stdout) as SearchResult;
      const want = await api(q, 100);
      assert.deepEqual({ ...got, meta: { ...got.meta, tookMs: 0 } }, { ...want, meta: { ...want.meta, tookMs: 0 } });
    }
  });

  it('writes ndjson: one event, or one row as an object, per line', async () => {
    const ev = await cli(['*', '--env', ENV, '-o', 'ndjson']);
    assert.equal(ev.code, 0, ev.stderr);
    assert.deepEqual(
      ev.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as EventJson),
      (await api('*')).events,
    );
    const q = '* | stats count by host';
    const tb = await cli([q, '--env', ENV, '-o', 'ndjson']);
    const a = await api(q);
    assert.deepEqual(
      tb.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
      a.rows!.map((row) => Object.fromEntries(a.columns!.map((c, i) => [c, row[i]]))),
    );
  });

  it('sends a query longer than a URL may be (20 KiB) and answers as the API does', async () => {
    const q = `status>203 NOT (${Array.from({ length: 900 }, (_, i) => `nosuchlongerword${i}`).join(' OR ')})`;
    assert.ok(q.length > 20_000);
    const r = await cli([q, '--env', ENV, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(r.stdout) as SearchResult;
    assert.equal(got.meta.matched, (await api('status>203', 100)).meta.matched);
  });

  it('prints an aligned table, whole lines in a pipe, without colour', async () => {
    const r = await cli(['* | stats count by host | sort host', '--env', ENV]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'host   count\ndb,2       4\nweb-1      4\n');
    const ev = await cli(['lines', '--env', ENV]);
    assert.equal(
      ev.stdout,
      'time                         host   message\n2026-01-01T00:00:03.000000Z  web-1  two\\nlines\n',
    );
    assert.match(ev.stderr, /1 of 1 event \(scanned \d+, \d+ ms\)/);
    const long = await cli(['xxxxx*', '--env', ENV]);
    assert.ok(long.stdout.includes('x'.repeat(300)), 'not cut in a pipe');
  });

  it('fits events to the terminal and colours them only there, and not with NO_COLOR', async () => {
    const env = { SVC_URL: srv.url, SVC_TOKEN: admin };
    const r = await runCliOnPty(['search', '*', '--env', ENV], { env });
    assert.equal(r.code, 0, r.output);
    const lines = r.output.split('\r\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    const long = lines.find((l) => l.includes('xxxxx'))!;
    assert.ok(long.length <= 80 && long.endsWith('…'), long);
    assert.match(r.output, /\x1b\[1mtime/, 'a bold header');
    const plain = await runCliOnPty(['search', '*', '--env', ENV], { env: { ...env, NO_COLOR: '1' } });
    assert.doesNotMatch(plain.output, /\x1b\[[0-9;]*m/);
  });

  it("exits 1 on an invalid query with the server's message and a caret under its position", async () => {
    const q = 'status=200 | stats count( by host';
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q })}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const err = ((await res.json()) as { error: { message: string; position: number } }).error;
    const r = await cli([q, '-o', 'csv']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.deepEqual(r.stderr.split('\n'), [`svc: ${err.message}`, `  ${q}`, `  ${' '.repeat(err.position)}^`, '']);
    const table = await cli([q]);
    assert.equal(table.stderr, r.stderr, 'the same for every format');
  });

  it('refuses a limit /api/search cannot answer as a usage error', async () => {
    const r = await cli(['*', '--limit', '20000']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--limit: at most 10000 with --output table/);
    const bad = await cli(['*', '--output', 'xml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Allowed choices are table, json, ndjson, csv/);
  });
});
