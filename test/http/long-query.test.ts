import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createIngestToken } from '../helpers/auth.js';

/**
 * A query too long for a URL: Node refuses headers over its limit (16 KiB) before any route runs.
 * svc answers that 431 in its JSON error shape with the way out (POST the query), and takes the
 * same parameters as a JSON body on POST /api/search, /api/histogram and /api/fields.
 */
describe('long queries', () => {
  let srv: TestServer;
  let admin: string;
  // ~25 KB: 900 long OR-ed terms (under the 1,000-term limit), one of which matches
  const longQ = [...Array.from({ length: 900 }, (_, i) => `nomatch_${'x'.repeat(16)}_${i}`), 'needle'].join(' OR ');

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    const token = await createIngestToken(srv, { env: 'default', index: 'web' });
    const lines = ['a needle here', 'hay', 'more hay'].map((message, i) =>
      JSON.stringify({ time: new Date(Date.now() - 60_000 + i).toISOString(), message }),
    );
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    assert.equal(res.status, 200);
  });
  after(async () => srv.close());

  const post = (path: string, body: unknown) =>
    fetch(`${srv.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers a GET search whose URL is over the header limit with 431 and a JSON error that says to POST it', async () => {
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q: longQ })}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(res.status, 431);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'headers_too_large');
    assert.match(body.error.message, /larger than 16 KiB: send a long query in a JSON body to POST \/api\/search/);
  });

  it('runs the same long query posted as a JSON body to search, histogram and fields', async () => {
    const s = await post('/api/search', { q: longQ, from: '-1h' });
    assert.equal(s.status, 200);
    assert.deepEqual(
      ((await s.json()) as { events: { message: string }[] }).events.map((e) => e.message),
      ['a needle here'],
    );
    const h = await post('/api/histogram', { q: longQ, from: '-1h', buckets: 4 });
    assert.equal(h.status, 200);
    assert.equal(
      ((await h.json()) as { buckets: { count: number }[] }).buckets.reduce((n, b) => n + b.count, 0),
      1,
    );
    const f = await post('/api/fields', { q: longQ, top: 2 });
    assert.equal(f.status, 200);
  });

  it('refuses a body that is not an object of search parameters with 400 naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [['*'], /^body: must be a JSON object of search parameters .* \(got a list\)/],
      ['*', /^body: must be a JSON object .* \(got a 1-character string\)/],
      [{ query: '*' }, /^query: unknown field \(want q, env, index/],
      [{ q: ['a', 'b'] }, /^q: must be given once, as a string/],
      [{ q: '*', limit: 'lots' }, /^limit: must be an integer from 1 to 10000/],
    ];
    for (const [body, message] of cases) {
      const res = await post('/api/search', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const e = ((await res.json()) as { error: { code: string; message: string } }).error;
      assert.equal(e.code, 'invalid_input');
      assert.match(e.message, message);
    }
  });

  it('answers a request Node cannot parse with 400 and a JSON error naming the reason', async () => {
    const url = new URL(srv.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(Number(url.port), url.hostname, () => sock.write('GARBAGE\r\n\r\n'));
      let got = '';
      sock.on('data', (d) => (got += d.toString()));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string; message: string };
    };
    assert.equal(body.error.code, 'invalid_input');
    assert.match(body.error.message, /^cannot parse the HTTP request: HPE_/);
  });
});
