import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createEnv, createIngestToken } from '../../helpers/auth.js';
import { startTestServer } from '../../helpers/server.js';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/**
 * Limits at the door on POST /api/ingest (docs/ingest-limits.md), through the real server: a line
 * that breaks one is refused or cut, the rest of the body is stored, and search finds it all.
 */
describe('native ingest limits', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_MAX_EVENT_BYTES: String(64 * 1024), SVC_MAX_EVENT_FIELDS: '50' });
  });
  after(() => e.close());

  const ingest = async (index: string, body: string | Buffer, type = 'application/x-ndjson') => {
    const res = await fetch(`${e.srv.url}/api/ingest?index=${index}`, {
      method: 'POST',
      headers: { 'content-type': type, authorization: `Bearer ${e.token}` },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        ingested: number;
        errors: number;
        firstErrors: { line: number; message: string }[];
      },
    };
  };

  it('refuses a line nested 10,000 deep and stores the rest of the batch', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const deepArray = `{"message":"arr","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const ok21 = `{"message":"twenty","l1":${'{"a":'.repeat(18)}1${'}'.repeat(18)}}`;
    const r = await ingest(
      'deep',
      ['{"message":"before deep"}', deep, deepArray, ok21, '{"message":"after deep"}'].join('\n'),
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.ingested, 3);
    assert.equal(r.body.errors, 2);
    assert.deepEqual(
      r.body.firstErrors.map((x) => x.line),
      [2, 3],
    );
    assert.match(r.body.firstErrors[0].message, /nested deeper than 20 levels/);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'deep' });
    assert.deepEqual(found.map((ev) => ev.message).sort(), ['after deep', 'before deep', 'twenty']);
  });

  it('refuses a line with more fields than the limit, naming the count and the limit', async () => {
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i])));
    const r = await ingest('wide', `{"message":"narrow"}\n${many}\n`);
    assert.equal(r.body.ingested, 1);
    assert.deepEqual(r.body.firstErrors, [
      { line: 2, message: 'cannot store an event with 51 fields: the limit is 50 (SVC_MAX_EVENT_FIELDS)' },
    ]);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'wide' });
    assert.deepEqual(
      found.map((ev) => ev.message),
      ['narrow'],
    );
  });

  it('cuts the longest values of an event over the size limit and marks it svc_truncated', async () => {
    const big = 'é'.repeat(100_000); // 200,000 bytes
    const line = JSON.stringify({ message: `start ${big}`, small: 'kept whole', other: 'x'.repeat(50_000) });
    const r = await ingest('big', `{"message":"neighbour"}\n${line}\n`);
    assert.deepEqual([r.body.ingested, r.body.errors], [2, 0]);
    const [ev] = await searchEvents(e.srv, e.searchKey, { index: 'big', q: 'svc_truncated=*' });
    assert.ok(ev, 'the cut event is found by svc_truncated');
    assert.equal(ev.fields.small, 'kept whole');
    const original = Buffer.byteLength(`start ${big}`) + 'kept whole'.length + 50_000 + 'smallother'.length;
    assert.equal(Number(ev.fields.svc_truncated), original);
    const size =
      Buffer.byteLength(ev.message) +
      Buffer.byteLength(String(ev.fields.other)) +
      'smallkept wholeothersvc_truncated'.length;
    assert.ok(size <= 64 * 1024, `the cut event fits: ${size}`);
    assert.ok(ev.message.startsWith('start éé'));
    assert.ok(!ev.message.includes('\ufffd'), 'cut at a character boundary');
    const all = await searchEvents(e.srv, e.searchKey, { index: 'big' });
    assert.equal(all.length, 2);
    const host = await ingest('bighost', JSON.stringify({ message: 'm', host: 'h'.repeat(200_000) }));
    assert.deepEqual([host.body.ingested, host.body.errors], [1, 0]);
    const [h] = await searchEvents(e.srv, e.searchKey, { index: 'bighost' });
    assert.ok(h.host.length <= 64 * 1024 && Number(h.fields.svc_truncated) === 200_001);
  });

  it('takes the arrival time for times outside years 1-9999 or too far ahead, keeping the original', async () => {
    const lines = [
      '{"message":"t-huge","_time":1e308}',
      '{"message":"t-year0","_time":"0000-06-01T00:00:00Z"}',
      '{"message":"t-rounds","_time":"9999-12-31T23:59:59.999999Z"}',
      '{"message":"t-2100","@timestamp":"2100-01-01T00:00:00Z"}',
      '{"message":"t-ok","_time":"2020-05-01T00:00:00Z"}',
    ];
    const before = Date.now();
    const r = await ingest('times', lines.join('\n'));
    assert.deepEqual([r.body.ingested, r.body.errors], [5, 0]);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'times', from: '2019-01-01T00:00:00Z' });
    const by = new Map(found.map((ev) => [ev.message, ev]));
    assert.equal(by.size, 5, 'every event matches *');
    assert.equal(String(by.get('t-huge')?.fields.time_original), '1e308');
    assert.equal(by.get('t-year0')?.fields.time_original, '0000-06-01T00:00:00Z');
    assert.equal(by.get('t-rounds')?.fields.time_original, '9999-12-31T23:59:59.999999Z');
    assert.equal(by.get('t-2100')?.fields.time_original, '2100-01-01T00:00:00Z');
    assert.equal(by.get('t-ok')?.fields.time_original, undefined);
    for (const m of ['t-huge', 't-year0', 't-rounds', 't-2100'])
      assert.ok(Date.parse(by.get(m)!.time) >= before - 1000, `${m} takes the arrival time`);
  });

  it('keeps a far-future text line at arrival time with its timestamp text', async () => {
    const r = await ingest(
      'text-times',
      '9999-12-31 23:59:59 future line\n2020-01-01 00:00:00 past line\n',
      'text/plain',
    );
    assert.equal(r.body.ingested, 2);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'text-times', from: '2019-01-01T00:00:00Z' });
    const fut = found.find((ev) => ev.message.includes('future'));
    assert.equal(fut?.fields.time_original, '9999-12-31 23:59:59');
  });

  it('keeps every value of core names in another case: HOST is the host, the others are <name>_user fields', async () => {
    const r = await ingest(
      'case',
      '{"message":"p","HOST":"h1","Message":"m1","Source":"s1","ENV":"e1","Index":"i1","other":"o1"}\n{"PROGRAM":"sshd","MESSAGE":"check pass; user unknown","HOST":"combo"}\n',
    );
    assert.deepEqual([r.body.ingested, r.body.errors], [2, 0]);
    const found = await searchEvents(e.srv, e.searchKey, { index: 'case' });
    const p = found.find((ev) => ev.message === 'p');
    assert.deepEqual(
      [p?.host, p?.source, p?.fields],
      ['h1', 's1', { Message_user: 'm1', ENV_user: 'e1', Index_user: 'i1', other: 'o1' }],
    );
    const ng = found.find((ev) => ev.host === 'combo');
    assert.deepEqual([ng?.message, ng?.fields.PROGRAM], ['check pass; user unknown', 'sshd']);
    const byName = await searchEvents(e.srv, e.searchKey, { index: 'case', q: 'ENV_user=e1 Message_user=m1' });
    assert.equal(byName.length, 1);
  });

  it('keeps a __proto__ key as an ordinary field and pollutes nothing', async () => {
    const r = await ingest('proto', '{"message":"proto","__proto__":"yes","constructor":{"prototype":{"x":1}}}\n');
    assert.deepEqual([r.body.ingested, r.body.errors], [1, 0]);
    assert.equal(({} as Record<string, unknown>).x, undefined);
    const [ev] = await searchEvents(e.srv, e.searchKey, { index: 'proto' });
    assert.equal(ev.message, 'proto');
    assert.equal(ev.fields['constructor.prototype.x'], 1);
    // the search answer carries it as an own field too (JSON.parse keeps "__proto__" as an own key)
    assert.equal(Object.getOwnPropertyDescriptor(ev.fields, '__proto__')?.value, 'yes');
  });
});

/** The reproduction: one 50 MB text line is cut, not a WAL line DuckDB cannot read. */
describe('native ingest of a 50 MB single-line body', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_MAX_BODY_BYTES: String(64 * 1024 * 1024), SVC_TEST_SEGMENT_AGE_MS: '200' });
  });
  after(() => e.close());

  it('stores the line cut to 1 MiB and search of the env still counts every event', async () => {
    const post = (body: Buffer | string) =>
      fetch(`${e.srv.url}/api/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${e.token}` },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
    assert.equal((await post('before the big line\n')).status, 200);
    const big = Buffer.alloc(50 * 1024 * 1024, 'a');
    big.write('huge ', 0);
    const res = await post(big);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ingested: 1, errors: 0, firstErrors: [] });
    assert.equal((await post('after the big line\n')).status, 200);
    // let the segments seal into blocks, as the reproduction waited
    await new Promise((r) => setTimeout(r, 1500));
    const all = await searchEvents(e.srv, e.searchKey, { q: '*' });
    assert.equal(all.length, 3);
    const cut = all.find((ev) => ev.message.startsWith('huge '));
    assert.equal(Number(cut?.fields.svc_truncated), 50 * 1024 * 1024);
    assert.ok(Buffer.byteLength(cut!.message) <= 1024 * 1024);
  });
});

/** One name rule (control/names.ts) for native ingest and the admin API: refused, never trimmed. */
describe('env and index names on native ingest and the admin API', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(() => e.close());

  it('refuses bad index names and an empty ?index= with 400 quoting the name', async () => {
    for (const [query, quoted] of [
      ['..', '".."'],
      ['a%2Fb', '"a/b"'],
      ['prod%0A', '"prod\\n"'],
      ['%20web', '" web"'],
      ['x'.repeat(10_000), '10000 characters'],
      ['', 'is empty'],
    ] as const) {
      const res = await fetch(`${e.srv.url}/api/ingest?index=${query}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${e.token}` },
        body: 'x',
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 400, query.slice(0, 20));
      assert.equal(body.error.code, 'invalid_input');
      assert.ok(body.error.message.includes(quoted), body.error.message);
    }
  });

  it('refuses a bad ?env= as a name before comparing it with the pin', async () => {
    const res = await fetch(`${e.srv.url}/api/ingest?env=prod%0A`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${e.token}` },
      body: 'x',
    });
    assert.equal(res.status, 400);
    assert.match(
      ((await res.json()) as { error: { message: string } }).error.message,
      /^env: want 1-64 letters.*"prod\\n"/,
    );
  });

  it('refuses an environment named "prod\\n" instead of trimming it', async () => {
    const { adminToken } = await import('../../helpers/auth.js');
    const admin = await adminToken(e.srv);
    const res = await fetch(`${e.srv.url}/api/admin/envs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ name: 'prod\n' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /"prod\\n"/);
  });
});

/** What the limits protect: sealing, search and the catalog, also after a restart on the same data. */
describe('cut and re-timed events through sealing and a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-limits-restart-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seals a 20 MB line, 2 MB of control characters and year-10000 times, and search * and the catalog still answer after a restart', async () => {
    const env = { SVC_TEST_SEGMENT_AGE_MS: '200' };
    let srv = await startTestServer(env, { dataDir });
    let key: string;
    try {
      await createEnv(srv, 'hostile');
      const token = await createIngestToken(srv, { env: 'hostile' });
      key = await createApiKey(srv, { scopes: ['standard'] });
      const post = (body: Buffer | string, type: string) =>
        fetch(`${srv.url}/api/ingest`, {
          method: 'POST',
          headers: { 'content-type': type, authorization: `Bearer ${token}` },
          body: typeof body === 'string' ? body : new Uint8Array(body),
        });
      const big = Buffer.alloc(20 * 1024 * 1024, 'q');
      big.write('bigline ', 0);
      assert.equal((await post(big, 'text/plain')).status, 200);
      // the worst case of escaping: 2 MB of control characters, cut to 1 MiB, a WAL line of ~6 MiB
      assert.equal(
        (await post(JSON.stringify({ message: 'ctl' + '\u0001'.repeat(2_000_000) }), 'application/x-ndjson')).status,
        200,
      );
      const times = [
        '{"message":"t1","_time":1e308}',
        '{"message":"t2","_time":"9999-12-31T23:59:59.999999Z"}',
        '{"message":"t3","_time":"0000-01-01T00:00:00Z"}',
        '{"message":"t4"}',
      ];
      assert.equal((await post(times.join('\n'), 'application/x-ndjson')).status, 200);
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      await srv.close();
    }
    srv = await startTestServer(env, { dataDir });
    try {
      const found = await searchEvents(srv, key, { q: '*', env: 'hostile' });
      assert.equal(found.length, 6);
      const blocks = readdirSync(dataDir, { recursive: true }).filter((f) => String(f).endsWith('.parquet'));
      assert.ok(blocks.length > 0, 'the segments were sealed into blocks');
      assert.equal(found.filter((ev) => ev.fields.time_original !== undefined).length, 3);
      const catalog = await fetch(`${srv.url}/api/catalog`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(catalog.status, 200);
    } finally {
      await srv.close();
    }
  });
});
