import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/**
 * Hostile bodies on every HTTP ingest endpoint, through the real server: each is answered below
 * 500 with a body that names the problem (or accepted), and a canary sent before is still found.
 */
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

const SHAPES: [string, string][] = [
  ['an object 10,000 deep', deepObject(10_000)],
  ['an array 10,000 deep', `{"message":"x","v":${deepArray(10_000)}}`],
  ['a message 10,000 arrays deep', `{"message":${deepArray(10_000)}}`],
  ['a time of 1e308', '{"message":"x","_time":1e308,"time":1e308,"timestamp":"1e308"}'],
  ['a time in year 0', '{"message":"x","@timestamp":"0000-01-01T00:00:00Z"}'],
  ['a time that rounds to year 10000', '{"message":"x","_time":"9999-12-31T23:59:59.999999Z"}'],
  ['a __proto__ key', '{"message":"x","__proto__":{"polluted":1},"constructor":{"prototype":{"p":1}}}'],
  ['2,000 fields', JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])))],
  ['a 2 MB value', JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) })],
  ['a 2 MB field name', JSON.stringify({ ['n'.repeat(2 * 1024 * 1024)]: 1 })],
  ['control characters', JSON.stringify({ message: '\u0000\u0001\u001f\u007f\ud800' })],
  ['a bare number', '12345'],
  ['null', 'null'],
  ['an unterminated object', '{"message":'],
];

describe('hostile ingest bodies on a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
    const res = await fetch(`${e.srv.url}/api/ingest?index=canary`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${e.token}` },
      body: 'canary before the hostile bodies',
    });
    assert.equal(res.status, 200);
  });
  after(() => e.close());

  const endpoints: [string, (doc: string) => { path: string; body: string; headers: Record<string, string> }][] = [
    [
      'native',
      (doc) => ({
        path: '/api/ingest?index=hostile',
        body: doc,
        headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${e.token}` },
      }),
    ],
    [
      '_bulk',
      (doc) => ({
        path: '/_bulk',
        body: `{"index":{"_index":"hostile"}}\n${doc}\n`,
        headers: { 'content-type': 'application/x-ndjson', authorization: `ApiKey ${e.token}` },
      }),
    ],
    [
      'HEC',
      (doc) => ({
        path: '/services/collector/event',
        body: `{"event":${doc},"index":"hostile"}`,
        headers: { authorization: `Splunk ${e.token}` },
      }),
    ],
    [
      'HEC fields',
      (doc) => ({
        path: '/services/collector/event',
        body: `{"event":"x","fields":${doc},"index":"hostile"}`,
        headers: { authorization: `Splunk ${e.token}` },
      }),
    ],
    [
      'Loki',
      (doc) => ({
        path: '/loki/api/v1/push',
        body: `{"streams":[{"stream":{"index":"hostile"},"values":[["${Date.now()}000000","x",${doc}]]}]}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${e.token}` },
      }),
    ],
    [
      'OTLP',
      (doc) => ({
        path: '/v1/logs',
        body: `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${doc}]}]}]}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${e.token}` },
      }),
    ],
  ];

  for (const [name, request] of endpoints) {
    for (const [what, doc] of SHAPES) {
      it(`${name}: answers ${what} below 500`, async () => {
        const r = request(doc);
        const res = await fetch(`${e.srv.url}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
        const text = await res.text();
        assert.ok(res.status < 500, `${res.status} ${text.slice(0, 300)}`);
        if (res.status >= 400) assert.match(text, /[a-z]{4,}/, 'the error names the problem');
      });
    }
  }

  it('still finds the canary, and searches of the env work', async () => {
    const found = await searchEvents(e.srv, e.searchKey, { index: 'canary' });
    assert.equal(found.length, 1);
    await searchEvents(e.srv, e.searchKey, { q: '*', from: '0001-01-01T00:00:00Z' });
  });
});
