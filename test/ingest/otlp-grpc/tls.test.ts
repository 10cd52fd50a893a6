import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { TEST_ADMIN_PASSWORD } from '../../helpers/auth.js';
import { makeCert, type CertPair } from '../../helpers/certs.js';
import { grpcExport, sdkRecords } from './exporter.js';

/** The common name of the certificate a new TLS connection (ALPN h2, as gRPC) is served on `port`. */
function servedCn(port: number, ca: Buffer[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'] }, () => {
      resolve(String(s.getPeerCertificate().subject?.CN ?? ''));
      s.end();
    });
    s.on('error', reject);
  });
}

/**
 * An ingest token for env `default`, made through Fastify's inject: the HTTP helpers' fetch does not
 * trust the test's self-signed certificate.
 */
async function ingestTokenOf(srv: TestServer): Promise<string> {
  const login = await srv.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  });
  const res = await srv.app.inject({
    method: 'POST',
    url: '/api/admin/ingest-tokens',
    headers: { authorization: `Bearer ${login.json<{ token: string }>().token}` },
    payload: { name: 'grpc-tls', env: 'default' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ secret: string }>().secret;
}

describe('OTLP/gRPC over TLS with svc certificate (SVC_TLS_CERT, SVC_TLS_KEY)', () => {
  let dir: string;
  let first: CertPair;
  let second: CertPair;
  let srv: TestServer;
  let token: string;
  let address: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-grpc-tls-'));
    first = makeCert(dir, 'first');
    second = makeCert(dir, 'second');
    writeFileSync(join(dir, 'svc.crt'), first.certPem);
    writeFileSync(join(dir, 'svc.key'), readFileSync(first.key));
    srv = await startTestServer({
      SVC_TLS_CERT: join(dir, 'svc.crt'),
      SVC_TLS_KEY: join(dir, 'svc.key'),
      SVC_OTLP_GRPC_LISTEN: '127.0.0.1:0',
    });
    token = await ingestTokenOf(srv);
    address = `127.0.0.1:${srv.otlpGrpc!.port}`;
  });
  after(async () => {
    await srv?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes an export from an exporter that trusts the certificate, and none in plaintext', async () => {
    const records = await sdkRecords((log) => log.emit({ body: 'grpc over tls' }));
    const ok = await grpcExport(address, token, records, { ca: first.certPem });
    assert.equal(ok.ok, true, String(ok.error));
    const plain = await grpcExport(address, token, records);
    assert.equal(plain.ok, false);
    assert.equal(plain.error?.code, status.UNAVAILABLE, String(plain.error));
  });

  it('serves a replaced certificate to new connections without a restart', async () => {
    const both = [first.certPem, second.certPem];
    assert.equal(await servedCn(srv.otlpGrpc!.port, both), 'first');
    writeFileSync(join(dir, 'svc.key.new'), readFileSync(second.key));
    writeFileSync(join(dir, 'svc.crt.new'), second.certPem);
    renameSync(join(dir, 'svc.key.new'), join(dir, 'svc.key'));
    renameSync(join(dir, 'svc.crt.new'), join(dir, 'svc.crt'));
    let served = '';
    // the files are checked every 2 s (http/tls.ts): wait for the change to be seen (up to 30 s on a busy machine)
    for (let i = 0; i < 150 && served !== 'second'; i++) {
      served = await servedCn(srv.otlpGrpc!.port, both);
      if (served !== 'second') await sleep(200);
    }
    assert.equal(served, 'second');
    const records = await sdkRecords((log) => log.emit({ body: 'grpc over renewed tls' }));
    const ok = await grpcExport(address, token, records, { ca: second.certPem });
    assert.equal(ok.ok, true, String(ok.error));
  });
});
