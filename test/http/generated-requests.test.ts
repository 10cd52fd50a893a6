import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import snappy from 'snappyjs';
import { adminToken } from '../helpers/auth.js';
import { E2E_ENV, startE2E, type E2E } from '../ingest/helpers/e2e.js';

/**
 * Generated requests (fast-check, fixed seeds) against a real server: whatever the body, headers or
 * query, every endpoint answers with its documented kind of status (never a 5xx) and an error is
 * JSON; the process keeps serving. Bodies are generated JSON values, byte noise, valid requests
 * cut short, and bodies whose Content-Encoding lies.
 */
interface Target {
  path: string;
  method?: string;
  type: string;
  auth: (token: string) => string;
  /** A valid body, for the cut-short and mislabelled variants. */
  valid: string;
  /**
   * How its errors are written when not JSON: Loki's own server answers in plain text, OTLP in the
   * request's encoding (a protobuf Status), and their clients expect exactly that.
   */
  errors?: 'text' | 'protobuf';
}

/** A Loki PushRequest (one stream `{job="x"}`, one entry "hi"), snappy-compressed as promtail sends it. */
const LOKI_PROTO = Buffer.from(
  snappy.compress(Buffer.from('\n\x15\n\x09{job="x"}\x12\x08\n\x02\x08\x01\x12\x02hi', 'latin1')),
).toString('latin1');
const bearer = (t: string) => `Bearer ${t}`;
const INGEST: Target[] = [
  {
    path: '/api/ingest',
    type: 'application/x-ndjson',
    auth: bearer,
    valid: '{"message":"a","host":"h"}\n{"message":"b"}\n',
  },
  { path: '/api/ingest', type: 'text/plain', auth: bearer, valid: '2024-05-01T10:00:00Z hello\nnext line\n' },
  { path: '/api/ingest', type: 'application/json', auth: bearer, valid: '[{"message":"a"},{"message":"b"}]' },
  {
    path: '/_bulk',
    type: 'application/x-ndjson',
    auth: (t) => `ApiKey ${t}`,
    valid: '{"index":{"_index":"web"}}\n{"message":"a"}\n{"create":{}}\n{"msg":"b"}\n',
  },
  {
    path: '/services/collector/event',
    type: 'application/json',
    auth: (t) => `Splunk ${t}`,
    valid: '{"event":"a","time":1714557600}{"event":{"k":1},"host":"h"}',
  },
  { path: '/services/collector/raw', type: 'text/plain', auth: (t) => `Splunk ${t}`, valid: 'line one\nline two\n' },
  {
    path: '/loki/api/v1/push',
    type: 'application/json',
    auth: bearer,
    valid: '{"streams":[{"stream":{"job":"x"},"values":[["1714557600000000000","hello"]]}]}',
    errors: 'text',
  },
  { path: '/loki/api/v1/push', type: 'application/x-protobuf', auth: bearer, valid: LOKI_PROTO, errors: 'text' },
  {
    path: '/v1/logs',
    type: 'application/json',
    auth: bearer,
    valid:
      '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1714557600000000000","body":{"stringValue":"a"}}]}]}]}',
  },
  { path: '/v1/logs', type: 'application/x-protobuf', auth: bearer, valid: '\n\x00', errors: 'protobuf' },
];

const body = (valid: string) =>
  fc.oneof(
    fc.constant(Buffer.from(valid, 'latin1')),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
    fc.array(fc.jsonValue(), { maxLength: 6 }).map((vs) => Buffer.from(vs.map((v) => JSON.stringify(v)).join('\n'))),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
    fc.nat({ max: valid.length }).map((n) => Buffer.from(valid.slice(0, n), 'latin1')),
    fc
      .tuple(fc.nat({ max: valid.length }), fc.uint8Array({ minLength: 1, maxLength: 4 }))
      .map(([n, b]) =>
        Buffer.concat([
          Buffer.from(valid.slice(0, n), 'latin1'),
          Buffer.from(b),
          Buffer.from(valid.slice(n), 'latin1'),
        ]),
      ),
  );
const encoding = fc.constantFrom<[string | undefined, (b: Buffer) => Buffer]>(
  [undefined, (b) => b],
  [undefined, (b) => b],
  ['gzip', (b) => gzipSync(b)],
  ['gzip', (b) => b],
  ['gzip', (b) => gzipSync(b)],
  ['deflate', (b) => b],
  ['br', (b) => b],
  ['x-nonsense', (b) => b],
);
const queryValue = fc.oneof(
  fc.constantFrom(E2E_ENV, 'default', '_system', '', 'nosuch', '../etc', 'a b', 'é', '*', 'x'.repeat(300)),
  fc.string({ maxLength: 12 }),
);

describe('generated requests', () => {
  let e: E2E;
  let admin: string;

  before(async () => {
    e = await startE2E();
    admin = await adminToken(e.srv);
  });
  after(async () => {
    await e.close();
  });

  async function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    data?: Buffer | string,
  ): Promise<{ status: number; text: string; type: string }> {
    const res = await fetch(`${e.srv.url}${path}`, {
      method,
      headers,
      body: data === undefined || typeof data === 'string' ? data : new Uint8Array(data),
    });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
  }

  function assertAnswer(
    what: string,
    r: { status: number; text: string; type: string },
    errors?: Target['errors'],
  ): void {
    assert.ok(r.status < 500, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
    if (r.status >= 400 && errors) {
      assert.ok(r.text.length > 0, `${what}: an error answer says why`);
      if (errors === 'protobuf') assert.match(r.type, /protobuf/, what);
    } else if (r.status >= 400) {
      assert.match(r.type, /json/, `${what}: an error answer is JSON (${r.status} ${r.type})`);
      assert.doesNotThrow(() => JSON.parse(r.text), `${what}: ${r.text.slice(0, 200)}`);
    }
  }

  it('each ingest target takes its valid body (the base the generated bodies vary)', async () => {
    for (const t of INGEST) {
      const r = await send(
        'POST',
        `${t.path}?env=${E2E_ENV}`,
        { 'content-type': t.type, authorization: t.auth(e.token) },
        Buffer.from(t.valid, 'latin1'),
      );
      assert.ok(r.status >= 200 && r.status < 300, `${t.path} ${t.type}: ${r.status} ${r.text}`);
    }
  });

  it('ingest endpoints answer every generated body, header and query without a 5xx', async () => {
    const seen = new Map<string, Set<number>>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...INGEST),
        fc.integer({ min: 0, max: 1000 }),
        encoding,
        fc.option(queryValue, { freq: 2 }),
        fc.option(queryValue, { freq: 2 }),
        fc.boolean(),
        async (t, seed, [enc, encode], env, index, authed) => {
          const data = encode(fc.sample(body(t.valid), { seed, numRuns: 1 })[0]);
          const qs = new URLSearchParams();
          if (env !== null) qs.set('env', env);
          if (index !== null) qs.set('index', index);
          const headers: Record<string, string> = { 'content-type': t.type };
          if (authed) headers.authorization = t.auth(e.token);
          if (enc) headers['content-encoding'] = enc;
          const path = `${t.path}${qs.size ? `?${qs}` : ''}`;
          const r = await send(t.method ?? 'POST', path, headers, data);
          assertAnswer(
            `${path} ${t.type} ${enc ?? ''} ${JSON.stringify(data.toString('latin1').slice(0, 120))}`,
            r,
            t.errors,
          );
          if (!authed) assert.ok(r.status === 401 || r.status === 403, `${path} without credentials: ${r.status}`);
          const key = `${t.path} ${t.type}`;
          if (!seen.has(key)) seen.set(key, new Set());
          seen.get(key)!.add(Math.floor(r.status / 100));
        },
      ),
      { numRuns: 600, seed: 42 },
    );
    // the generator reached both sides: requests taken and requests refused
    const all = new Set([...seen.values()].flatMap((x) => [...x]));
    assert.deepEqual([...all].sort(), [2, 4]);
  });

  const adminBody = fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue()),
      username: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue()),
      password: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue()),
      role: fc.oneof(fc.constantFrom('admin', 'user', 'root'), fc.jsonValue()),
      scopes: fc.oneof(
        fc.array(fc.constantFrom('standard', 'admin', 'mcp', 'nope', ''), { maxLength: 4 }),
        fc.jsonValue(),
      ),
      expiresInDays: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      env: fc.oneof(queryValue, fc.jsonValue()),
      index: fc.oneof(queryValue, fc.jsonValue()),
      retentionDays: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      retentionDefaultDays: fc.oneof(fc.integer(), fc.jsonValue()),
      allow: fc.oneof(
        fc.record({ envs: fc.jsonValue(), indexes: fc.jsonValue(), tools: fc.jsonValue() }, { requiredKeys: [] }),
        fc.jsonValue(),
      ),
      q: fc.oneof(fc.string({ maxLength: 30 }), fc.jsonValue()),
      limit: fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const ADMIN: [string, string][] = [
    ['POST', '/api/admin/users'],
    ['PATCH', '/api/admin/users/nosuch'],
    ['POST', '/api/admin/api-keys'],
    ['POST', '/api/admin/envs'],
    ['PATCH', `/api/admin/envs/${E2E_ENV}`],
    ['POST', '/api/admin/ingest-tokens'],
    ['PATCH', '/api/admin/settings'],
    ['POST', '/api/search'],
    ['POST', '/api/auth/login'],
  ];

  it('admin, search and login endpoints answer every generated JSON body without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ADMIN),
        fc.oneof(
          adminBody.map((b) => JSON.stringify(b)),
          fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
          fc.string({ maxLength: 40 }),
        ),
        async ([method, path], text) => {
          const r = await send(
            method,
            path,
            { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            text,
          );
          assertAnswer(`${method} ${path} ${text.slice(0, 200)}`, r);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });

  it('search parameters of every shape get an answer, not a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          q: fc.option(fc.string({ maxLength: 20 })),
          env: fc.option(queryValue),
          index: fc.option(queryValue),
          from: fc.option(fc.constantFrom('-1h', 'now', 'x', '2024-05-01', '1e99', '')),
          to: fc.option(fc.constantFrom('now', '-1d', '9999999999999', '')),
          limit: fc.option(fc.constantFrom('0', '-1', '1e9', 'x', '5')),
          buckets: fc.option(fc.constantFrom('0', 'x', '100000')),
          top: fc.option(fc.constantFrom('0', '-2', 'y')),
        }),
        fc.constantFrom('/api/search', '/api/histogram', '/api/fields'),
        async (params, path) => {
          const qs = new URLSearchParams();
          for (const [k, v] of Object.entries(params)) if (v !== null) qs.set(k, v);
          const r = await send('GET', `${path}?${qs}`, { authorization: `Bearer ${admin}` });
          assertAnswer(`${path}?${qs}`, r);
        },
      ),
      { numRuns: 300, seed: 9 },
    );
  });

  it('still serves after all that', async () => {
    const r = await send('GET', '/api/version', {});
    assert.equal(r.status, 200);
  });
});
