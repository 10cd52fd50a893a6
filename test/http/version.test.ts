import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/version', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv.close();
  });

  it('answers the version and the API level with the X-Svc-Version header', async () => {
    const res = await fetch(`${srv.url}/api/version`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { version: string; api: number };
    assert.equal(body.api, 1);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(res.headers.get('x-svc-version'), body.version);
  });

  it('answers an unknown route with 404 in the JSON error shape', async () => {
    const res = await fetch(`${srv.url}/api/nope`);
    assert.equal(res.status, 404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'not_found');
    assert.match(body.error.message, /no route/);
  });
});
