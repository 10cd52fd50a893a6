import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createIngestToken } from '../helpers/auth.js';

/** A client that sends its request too slowly is answered 408 and disconnected (SVC_REQUEST_TIMEOUT_SECS). */
describe('slow clients', () => {
  let srv: TestServer;
  let token: string;
  before(async () => {
    srv = await startTestServer({ SVC_REQUEST_TIMEOUT_SECS: '1' });
    token = await createIngestToken(srv, { env: 'default' });
  });
  after(async () => {
    await srv.close();
  });

  it('a body trickled past the request timeout gets 408 and the socket is closed', async () => {
    const { hostname, port } = new URL(srv.url);
    const sock = connect(Number(port), hostname);
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write(
      `POST /api/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly part of it`,
    );
    let answer = '';
    sock.on('data', (d: Buffer) => (answer += d.toString()));
    const started = Date.now();
    await new Promise<void>((r) => sock.once('close', () => r()));
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(Date.now() - started < 10_000, `closed after ${Date.now() - started} ms`);
  });

  it('a request sent in time is served as usual', async () => {
    const res = await fetch(`${srv.url}/api/version`);
    assert.equal(res.status, 200);
  });
});
