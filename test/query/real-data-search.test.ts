import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createEnv, createIngestToken } from '../helpers/auth.js';
import type { SearchResult } from '../../src/query/types.js';
import type { JsonValue } from '../../src/query/results.js';

/**
 * Search correctness on real logs: ingests real files through POST /api/ingest, then compares
 * term, phrase, field-filter, stats, rex, timechart and time-range answers of /api/search with
 * what this test computes itself from the raw lines. The files are read in place, never copied.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const present = existsSync(join(DATA, 'elastic-examples-apache'));
if (!present) console.log(`# skipping real-data search tests: no real data at ${DATA} (set SVC_REAL_DATA)`);

const ENV = 'realq';
const lines = (rel: string) =>
  readFileSync(join(DATA, rel), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);

/** The test's own whole-token rule (case-insensitive; no letter, digit or _ directly around). */
function hasToken(text: string, term: string): boolean {
  const m = text.toLowerCase();
  const t = term.toLowerCase();
  const word = (c: string | undefined) => c !== undefined && /[a-z0-9_]/.test(c);
  for (let i = m.indexOf(t); i >= 0; i = m.indexOf(t, i + 1)) {
    if ((!word(t[0]) || !word(m[i - 1])) && (!word(t[t.length - 1]) || !word(m[i + t.length]))) return true;
  }
  return false;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `[17/May/2015:10:05:03 +0000]` → epoch ms. */
function apacheTime(line: string): number {
  const m = /\[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\]/.exec(line)!;
  const off = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9])) * 60_000;
  return Date.UTC(Number(m[3]), MONTHS.indexOf(m[2]), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])) - off;
}

describe('search correctness on real logs', { skip: present ? false : `no real data at ${DATA}` }, () => {
  let srv: TestServer;
  let token: string;
  const apache = present ? lines('elastic-examples-apache/apache_access_combined.log') : [];
  const openssh = present ? lines('loghub/OpenSSH/OpenSSH_2k.log') : [];
  const zeekFiles = ['syslog.json', 'smtp.json', 'ssh.json', 'notice.json'];
  const zeekLines = present ? zeekFiles.flatMap((f) => lines(`zeek-wrccdc-json/${f}`)) : [];
  const zeek = zeekLines.map((l) => JSON.parse(l) as Record<string, JsonValue>);
  /** What svc searches for a JSON event: its `message`, else the original line. */
  const zeekMessages = zeek.map((o, i) => (typeof o.message === 'string' ? o.message : zeekLines[i]));

  async function search(q: string, params: Record<string, string> = {}): Promise<SearchResult> {
    const qs = new URLSearchParams({ q, env: ENV, limit: '1', ...params });
    const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    assert.equal(res.status, 200, `${q}: ${text}`);
    return JSON.parse(text) as SearchResult;
  }
  const matched = async (q: string, index: string, params: Record<string, string> = {}) =>
    (await search(q, { index, ...params })).meta.matched;

  async function ingest(index: string, body: string, contentType: string): Promise<void> {
    const ingestToken = await createIngestToken(srv, { env: ENV });
    const res = await fetch(`${srv.url}/api/ingest?index=${index}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ingestToken}`, 'content-type': contentType },
      body,
    });
    const answer = (await res.json()) as { ingested: number; errors: number };
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.equal(answer.errors, 0);
  }

  before(async () => {
    srv = await startTestServer();
    await createEnv(srv, ENV);
    await ingest(
      'apache',
      readFileSync(join(DATA, 'elastic-examples-apache/apache_access_combined.log'), 'utf8'),
      'text/plain',
    );
    await ingest('ssh', readFileSync(join(DATA, 'loghub/OpenSSH/OpenSSH_2k.log'), 'utf8'), 'text/plain');
    await ingest('zeek', zeekLines.join('\n') + '\n', 'application/x-ndjson');
    token = await adminToken(srv);
  });
  after(async () => {
    await srv?.close();
  });

  it('holds every line of each file', async () => {
    assert.equal(await matched('*', 'apache'), apache.length);
    assert.equal(await matched('*', 'ssh'), openssh.length);
    assert.equal(await matched('*', 'zeek'), zeek.length);
  });

  for (const term of ['GET', 'googlebot', 'favicon.ico', '404', 'HEAD', 'bingbot', 'Mozilla', 'index.html', '200']) {
    it(`counts the term ${term} in the Apache access log like the test does`, async () => {
      assert.equal(await matched(term, 'apache'), apache.filter((l) => hasToken(l, term)).length);
    });
  }

  for (const phrase of ['GET /favicon.ico', 'compatible; Googlebot/2.1', 'Windows NT 6.1']) {
    it(`counts the phrase "${phrase}" like the test does`, async () => {
      const expect = apache.filter((l) => hasToken(l, phrase)).length;
      assert.ok(expect > 0);
      assert.equal(await matched(`"${phrase}"`, 'apache'), expect);
    });
  }

  it('counts boolean combinations of OpenSSH terms', async () => {
    const has = (l: string, t: string) => hasToken(l, t);
    assert.equal(
      await matched('Failed password', 'ssh'),
      openssh.filter((l) => has(l, 'failed') && has(l, 'password')).length,
    );
    assert.equal(
      await matched('"Failed password for invalid user"', 'ssh'),
      openssh.filter((l) => has(l, 'Failed password for invalid user')).length,
    );
    assert.equal(
      await matched('preauth NOT Disconnecting', 'ssh'),
      openssh.filter((l) => has(l, 'preauth') && !has(l, 'disconnecting')).length,
    );
    assert.equal(
      await matched('invalid OR failure', 'ssh'),
      openssh.filter((l) => has(l, 'invalid') || has(l, 'failure')).length,
    );
  });

  it('extracts fields with rex and counts by them', async () => {
    const r = await search(
      '"Failed password" | rex "Failed password for (invalid user )?(?<user>\\S+) from" | stats count by user',
      { index: 'ssh' },
    );
    const expect = new Map<string, number>();
    for (const l of openssh) {
      const m = /Failed password for (invalid user )?(\S+) from/.exec(l);
      if (m && hasToken(l, 'Failed password')) expect.set(m[2], (expect.get(m[2]) ?? 0) + 1);
    }
    assert.deepEqual(new Map(r.rows!.map((row) => [row[0] as string, row[1] as number])), expect);
  });

  it('filters JSON fields by value, case-insensitively and numerically', async () => {
    assert.equal(await matched('id.resp_p=22', 'zeek'), zeek.filter((o) => o['id.resp_p'] === 22).length);
    assert.equal(
      await matched('severity=info', 'zeek'),
      zeek.filter((o) => String(o.severity ?? '').toLowerCase() === 'info').length,
    );
    assert.equal(await matched('id.orig_p>=60000', 'zeek'), zeek.filter((o) => Number(o['id.orig_p']) >= 60000).length);
    assert.equal(
      await matched('proto=udp id.resp_p!=514', 'zeek'),
      zeek.filter((o) => o.proto === 'udp' && o['id.resp_p'] !== undefined && o['id.resp_p'] !== 514).length,
    );
    assert.equal(
      await matched('id.resp_h=10.47.8.*', 'zeek'),
      zeek.filter((o) => String(o['id.resp_h'] ?? '').startsWith('10.47.8.')).length,
    );
  });

  it('matches terms in the message of JSON events, or their line when they have none', async () => {
    for (const term of ['stopped', 'smtp', 'EvntSLog', 'OpenSSH_7.4p1']) {
      assert.equal(await matched(term, 'zeek'), zeekMessages.filter((m) => hasToken(m, term)).length, term);
    }
  });

  it('answers stats count by two fields like the test does', async () => {
    const r = await search('* | stats count by facility, severity', { index: 'zeek', limit: '1000' });
    const expect = new Map<string, number>();
    for (const o of zeek)
      if (o.facility !== undefined && o.severity !== undefined)
        expect.set(
          `${String(o.facility)}|${String(o.severity)}`,
          (expect.get(`${String(o.facility)}|${String(o.severity)}`) ?? 0) + 1,
        );
    assert.deepEqual(new Map(r.rows!.map((row) => [`${String(row[0])}|${String(row[1])}`, row[2]])), expect);
  });

  it('aggregates numeric JSON fields like the test does', async () => {
    const ports = zeek.filter((o) => o._path === 'ssh').map((o) => Number(o['id.orig_p']));
    const r = await search(
      'id.resp_p=22 | stats count, sum(id.orig_p) as s, min(id.orig_p) as lo, max(id.orig_p) as hi, dc(id.orig_h) as hosts',
      { index: 'zeek' },
    );
    const ssh = zeek.filter((o) => o['id.resp_p'] === 22);
    assert.deepEqual(r.rows, [
      [
        ssh.length,
        ssh.reduce((s, o) => s + Number(o['id.orig_p']), 0),
        Math.min(...ssh.map((o) => Number(o['id.orig_p']))),
        Math.max(...ssh.map((o) => Number(o['id.orig_p']))),
        new Set(ssh.map((o) => o['id.orig_h'])).size,
      ],
    ]);
    assert.ok(ports.length > 0);
  });

  it('counts events in a time range given by from/to and by earliest/latest', async () => {
    const from = Date.UTC(2015, 4, 18, 0, 0, 0);
    const to = Date.UTC(2015, 4, 19, 6, 30, 0);
    const expect = apache.filter((l) => apacheTime(l) >= from && apacheTime(l) < to).length;
    assert.ok(expect > 0 && expect < apache.length);
    assert.equal(
      await matched('*', 'apache', { from: new Date(from).toISOString(), to: new Date(to).toISOString() }),
      expect,
    );
    assert.equal(await matched(`earliest=${new Date(from).toISOString()} latest=${to / 1000}`, 'apache'), expect);
    const gets = apache.filter((l) => apacheTime(l) >= from && apacheTime(l) < to && hasToken(l, 'GET')).length;
    assert.equal(
      await matched('GET', 'apache', { from: new Date(from).toISOString(), to: new Date(to).toISOString() }),
      gets,
    );
  });

  it('counts per hour with timechart like the test does', async () => {
    const r = await search('* | timechart span=1h count', { index: 'apache', limit: '1000' });
    const expect = new Map<number, number>();
    for (const l of apache) {
      const h = Math.floor(apacheTime(l) / 3_600_000) * 3_600_000;
      expect.set(h, (expect.get(h) ?? 0) + 1);
    }
    const got = new Map(r.rows!.map((row) => [Date.parse(row[0] as string), row[1] as number]));
    for (const [h, n] of expect) assert.equal(got.get(h), n, new Date(h).toISOString());
    assert.equal(
      [...got.values()].reduce((a, b) => a + b, 0),
      apache.length,
    );
  });

  it('returns the newest matching events first', async () => {
    const r = await search('googlebot', { index: 'apache', limit: '5' });
    const times = apache
      .filter((l) => hasToken(l, 'googlebot'))
      .map(apacheTime)
      .sort((a, b) => b - a)
      .slice(0, 5);
    assert.deepEqual(
      r.events.map((e) => Date.parse(e.time)),
      times,
    );
  });

  it('says how many events lie outside a time range that misses them', async () => {
    const r = await search('*', { index: 'apache', from: '2020-01-01T00:00:00Z', to: 'now' });
    assert.equal(r.meta.matched, 0);
    assert.equal(r.meta.hint?.eventsOutsideRange, apache.length);
  });
});
