import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { adminToken, call, createApiKey, createEnv, createIngestToken } from '../../helpers/auth.js';

/** POST /api/ingest on the real server: the auth hook, the control plane and the storage engine. */
describe('POST /api/ingest on a real server', () => {
  let srv: TestServer;
  let token: string;
  before(async () => {
    srv = await startTestServer({ SVC_MAX_BODY_BYTES: String(64 * 1024) });
    token = await createIngestToken(srv, { env: 'default' });
  });
  after(() => srv.close());

  const ingest = (
    body: string | Buffer,
    opts: { token?: string; query?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${srv.url}/api/ingest${opts.query ?? ''}`, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        ...(opts.token === '' ? {} : { authorization: `Bearer ${opts.token ?? token}` }),
        ...opts.headers,
      },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  const stored = (index: string) => srv.deps.store.partitions(['default']).find((p) => p.index === index)?.events ?? 0;

  it('stores the lines of an acknowledged request at once', async () => {
    const res = await ingest('Jun 14 15:16:01 combo sshd: one\nJun 14 15:16:02 combo sshd: two\n', {
      query: '?index=native1',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ingested: 2, errors: 0, firstErrors: [] });
    assert.equal(stored('native1'), 2);
  });

  it('stores NDJSON but not its malformed lines', async () => {
    const res = await ingest('{"message":"a"}\n{oops}\n{"message":"b"}', {
      query: '?index=native2',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    const body = (await res.json()) as { ingested: number; errors: number };
    assert.deepEqual([body.ingested, body.errors], [2, 1]);
    assert.equal(stored('native2'), 2);
  });

  it('rejects a request without a token with 401', async () => {
    const res = await ingest('x', { token: '' });
    assert.equal(res.status, 401);
  });

  it('rejects an API key with 403', async () => {
    const key = await createApiKey(srv, { scopes: ['admin'] });
    const res = await ingest('x', { token: key });
    assert.equal(res.status, 403);
  });

  it('answers 400 unknown environment once the pinned env is gone', async () => {
    await createEnv(srv, 'doomed');
    const doomed = await createIngestToken(srv, { env: 'doomed' });
    await call(srv, 'DELETE', '/api/admin/envs/doomed', { token: await adminToken(srv) });
    const res = await ingest('x', { token: doomed });
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(res.status, 400);
    assert.deepEqual(body.error, { code: 'unknown_environment', message: 'unknown environment: "doomed"' });
  });

  it('answers 413 past SVC_MAX_BODY_BYTES, raw or decompressed', async () => {
    assert.equal((await ingest(Buffer.alloc(64 * 1024 + 1, 'a'))).status, 413);
    const res = await ingest(gzipSync(Buffer.alloc(64 * 1024 + 1, 'a')), { headers: { 'content-encoding': 'gzip' } });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'body_too_large');
  });
});
