import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { makeCert, type CertPair as Pair } from '../helpers/certs.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The common name of the certificate the server presented. */
  servedCn: string;
}

/** One request over a new TLS connection (no keep-alive: each sees the certificate served now), trusting only `ca`. */
function httpsCall(url: string, ca: Buffer[], opts: { method?: string; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = request(
      url,
      { method: opts.method ?? 'GET', ca, agent: false, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const servedCn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            servedCn,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const loginBody = { username: 'admin', password: TEST_ADMIN_PASSWORD };

describe('HTTPS served by svc itself (SVC_TLS_CERT, SVC_TLS_KEY)', () => {
  let dir: string;
  let first: Pair;
  let second: Pair;
  let srv: TestServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    first = makeCert(dir, 'first');
    second = makeCert(dir, 'second');
    // the served files, which the test later replaces
    writeFileSync(join(dir, 'svc.crt'), first.certPem);
    writeFileSync(join(dir, 'svc.key'), readFileSync(first.key));
    srv = await startTestServer({ SVC_TLS_CERT: join(dir, 'svc.crt'), SVC_TLS_KEY: join(dir, 'svc.key') });
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers over HTTPS to a client that trusts the certificate, and refuses one that does not', async () => {
    assert.match(srv.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await httpsCall(`${srv.url}/api/version`, [first.certPem]);
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).name, 'svc');
    await assert.rejects(
      httpsCall(`${srv.url}/api/version`, [second.certPem]),
      /self[- ]signed|unable to verify|certificate/i,
    );
    // plain HTTP on the HTTPS port gets no answer of svc's
    await assert.rejects(fetch(`${srv.url.replace('https:', 'http:')}/api/version`).then((r) => r.text()));
  });

  it('sets the session cookie Secure on an HTTPS login, and sends no HSTS header unless configured', async () => {
    const res = await httpsCall(`${srv.url}/api/auth/login`, [first.certPem], { method: 'POST', body: loginBody });
    assert.equal(res.status, 200);
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^svc_session=[^;]+;.*HttpOnly.*; Secure$/);
    assert.equal(res.headers['strict-transport-security'], undefined);
  });

  it('serves a replaced certificate to new connections without a restart', async () => {
    assert.equal((await httpsCall(`${srv.url}/api/version`, [first.certPem, second.certPem])).servedCn, 'first');
    // replaced as renewal tools do: written aside, renamed over the old files
    writeFileSync(join(dir, 'svc.key.new'), readFileSync(second.key));
    writeFileSync(join(dir, 'svc.crt.new'), second.certPem);
    renameSync(join(dir, 'svc.key.new'), join(dir, 'svc.key'));
    renameSync(join(dir, 'svc.crt.new'), join(dir, 'svc.crt'));
    let served = '';
    // the files are checked every 2 s: wait for the change to be seen (up to 30 s on a busy machine)
    for (let i = 0; i < 150 && served !== 'second'; i++) {
      served = (await httpsCall(`${srv.url}/api/version`, [first.certPem, second.certPem])).servedCn;
      if (served !== 'second') await sleep(200);
    }
    assert.equal(served, 'second');
    assert.equal((await httpsCall(`${srv.url}/api/version`, [second.certPem])).status, 200);
  });
});

describe('HSTS and Secure cookies by configuration', () => {
  let dir: string;
  let pair: Pair;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    pair = makeCert(dir, 'hsts');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sends Strict-Transport-Security with SVC_HSTS_MAX_AGE_SECS on HTTPS answers', async () => {
    const srv = await startTestServer({
      SVC_TLS_CERT: pair.cert,
      SVC_TLS_KEY: pair.key,
      SVC_HSTS_MAX_AGE_SECS: '31536000',
    });
    try {
      const res = await httpsCall(`${srv.url}/api/version`, [pair.certPem]);
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
    } finally {
      await srv.close();
    }
  });

  it('sets the cookie Secure over plain HTTP when SVC_PUBLIC_URL is https, and not otherwise', async () => {
    for (const [env, secure] of [
      [{ SVC_PUBLIC_URL: 'https://logs.example.com' }, true],
      [{}, false],
    ] as const) {
      const srv = await startTestServer({ ...env, SVC_HSTS_MAX_AGE_SECS: '600' });
      try {
        const res = await fetch(`${srv.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(loginBody),
        });
        assert.equal(res.status, 200);
        assert.equal(/; Secure/.test(res.headers.get('set-cookie')!), secure);
        // never HSTS over plain HTTP: browsers ignore it there
        assert.equal(res.headers.get('strict-transport-security'), null);
      } finally {
        await srv.close();
      }
    }
  });

  it('refuses to start with a key that does not belong to the certificate, naming the settings', async () => {
    const other = makeCert(dir, 'other');
    // a server that starts anyway is closed, so the failure is reported rather than left running
    const start = (env: Record<string, string>) =>
      startTestServer(env).then(
        async (s) => (await s.close(), 'started'),
        (e: Error) => e.message,
      );
    assert.match(
      await start({ SVC_TLS_CERT: pair.cert, SVC_TLS_KEY: other.key }),
      /SVC_TLS_CERT\/SVC_TLS_KEY: cannot use/,
    );
    assert.match(await start({ SVC_TLS_CERT: pair.cert }), /SVC_TLS_KEY: HTTPS needs both/);
  });
});
