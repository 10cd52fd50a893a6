import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken } from '../helpers/auth.js';

/** A stand-in for the built UI (dist/web): the server's serving rules do not depend on what Vite wrote. */
function fakeUi(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ui-files-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><script type="module" src="/ui/assets/index-abc123.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('serving the web UI', () => {
  let srv: TestServer;
  let dir: string;
  before(async () => {
    dir = fakeUi();
    srv = await startTestServer({ SVC_UI_DIR: dir });
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a browser asking for / to the UI', async () => {
    const res = await srv.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/ui/');
  });

  it('keeps the Elasticsearch answer on / for every other client', async () => {
    for (const accept of [
      undefined,
      'application/json',
      'application/vnd.elasticsearch+json; compatible-with=8',
      '*/*',
    ]) {
      const res = await srv.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
      assert.equal(res.statusCode, 200, String(accept));
      assert.equal(res.headers['x-elastic-product'], 'Elasticsearch');
      assert.equal(res.json().tagline, 'You Know, for Search');
    }
  });

  it('answers deep links with the page, uncached, under a CSP without inline script', async () => {
    for (const url of ['/ui/', '/ui/search?q=error&from=-1h', '/ui/admin/api-keys']) {
      const res = await srv.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      const nonce = /'nonce-([^']+)'/.exec(csp)![1];
      assert.ok(res.body.includes(`content="${nonce}"`), 'the page carries the nonce of its own CSP');
    }
  });

  it('gives each page load a fresh nonce', async () => {
    const a = await srv.app.inject({ method: 'GET', url: '/ui/' });
    const b = await srv.app.inject({ method: 'GET', url: '/ui/' });
    assert.notEqual(a.headers['content-security-policy'], b.headers['content-security-policy']);
  });

  it('caches hashed assets for a year and refuses missing ones with 404, never the page', async () => {
    const js = await srv.app.inject({ method: 'GET', url: '/ui/assets/index-abc123.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['cache-control']), /max-age=31536000.*immutable|immutable.*max-age=31536000/);
    assert.equal(js.headers['x-content-type-options'], 'nosniff');
    const missing = await srv.app.inject({ method: 'GET', url: '/ui/assets/index-gone.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'not_found');
  });

  it('serves nothing outside the UI directory', async () => {
    for (const url of [
      '/ui/../package.json',
      '/ui/%2e%2e/package.json',
      '/ui/assets/../../package.json',
      '/ui/..%2f..%2fpackage.json',
    ]) {
      const res = await srv.app.inject({ method: 'GET', url });
      assert.ok(!res.body.includes('"dependencies"'), url);
    }
  });
});

/** The UI as `npm run build:web` wrote it (the README's test command builds it first). */
const BUILT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'web');
const built = existsSync(join(BUILT, 'index.html'));
if (!built) console.log(`# skipping the built UI's compression checks: no build at ${BUILT} (npm run build:web)`);

describe('the built UI, compressed', { skip: built ? false : 'the UI is not built' }, () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ SVC_UI_DIR: BUILT });
  });
  after(() => srv.close());
  const assets = () =>
    readdirSync(join(BUILT, 'assets')).filter(
      (n) => /\.(js|css)$/.test(n) && statSync(join(BUILT, 'assets', n)).size >= 1024,
    );

  it('has a Brotli and a gzip copy of each script and style sheet, each the same bytes', () => {
    assert.ok(assets().length >= 2);
    for (const name of assets()) {
      const raw = readFileSync(join(BUILT, 'assets', name));
      assert.deepEqual(brotliDecompressSync(readFileSync(join(BUILT, 'assets', `${name}.br`))), raw, name);
      assert.deepEqual(gunzipSync(readFileSync(join(BUILT, 'assets', `${name}.gz`))), raw, name);
    }
  });

  it('sends the encoding the browser accepts, Brotli first, and the plain file to others', async () => {
    const name = assets().find((n) => n.endsWith('.js'))!;
    const raw = readFileSync(join(BUILT, 'assets', name));
    const get = (encoding?: string) =>
      srv.app.inject({
        method: 'GET',
        url: `/ui/assets/${name}`,
        headers: encoding ? { 'accept-encoding': encoding } : {},
      });
    const br = await get('gzip, deflate, br, zstd');
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.deepEqual(brotliDecompressSync(br.rawPayload), raw);
    const gz = await get('gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.rawPayload), raw);
    const plain = await get();
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.rawPayload, raw);
  });

  it('sends at most 300 KB of compressed script and style sheet on the first load of the search page', async () => {
    const page = await srv.app.inject({ method: 'GET', url: '/ui/search' });
    const names = [...page.body.matchAll(/\/ui\/assets\/([\w.-]+\.(?:js|css))/g)].map((m) => m[1]);
    assert.ok(names.some((n) => n.endsWith('.js')));
    let bytes = 0;
    for (const name of names) {
      const res = await srv.app.inject({
        method: 'GET',
        url: `/ui/assets/${name}`,
        headers: { 'accept-encoding': 'br' },
      });
      assert.equal(res.statusCode, 200, name);
      bytes += res.rawPayload.length;
    }
    assert.ok(bytes <= 300 * 1024, `${bytes} bytes`);
  });
});

describe('an svc whose UI is not built', () => {
  it('says how to build it instead of failing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-no-ui-'));
    const srv = await startTestServer({ SVC_UI_DIR: empty });
    try {
      const res = await srv.app.inject({ method: 'GET', url: '/ui/search' });
      assert.equal(res.statusCode, 503);
      assert.match(res.body, /npm run build/);
    } finally {
      await srv.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the cross-site request guard', () => {
  let srv: TestServer;
  let cookie: string;
  let n = 0;
  before(async () => {
    srv = await startTestServer();
    cookie = `svc_session=${await adminToken(srv)}`;
  });
  after(() => srv.close());

  const createKey = (headers: Record<string, string>) =>
    srv.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { 'content-type': 'application/json', host: 'svc.example:7300', ...headers },
      payload: { name: `k${++n}`, scopes: ['standard'] },
    });

  it('refuses a cookie-authenticated write from another origin with 403', async () => {
    const res = await createKey({ cookie, origin: 'https://evil.example' });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'cross_site_request');
  });

  it('refuses a cookie-authenticated write that proves no origin at all', async () => {
    const res = await createKey({ cookie });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'cross_site_request');
  });

  it("lets a write through from svc's own origin, or with the X-Svc-Request header", async () => {
    assert.equal((await createKey({ cookie, origin: 'http://svc.example:7300' })).statusCode, 201);
    assert.equal((await createKey({ cookie, 'x-svc-request': '1' })).statusCode, 201);
  });

  it('leaves calls with an Authorization header alone: scripts and keys carry their own proof', async () => {
    const token = await adminToken(srv);
    assert.equal(
      (await createKey({ authorization: `Bearer ${token}`, origin: 'https://evil.example' })).statusCode,
      201,
    );
  });

  it('leaves reads alone', async () => {
    const res = await srv.app.inject({
      method: 'GET',
      url: '/api/admin/api-keys',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(res.statusCode, 200);
  });

  it('refuses a login form posted from another site', async () => {
    const res = await srv.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json', host: 'svc.example:7300', origin: 'https://evil.example' },
      payload: { username: 'admin', password: 'test-admin-password' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'cross_site_request');
  });
});

describe('the cross-site request guard behind a proxy', () => {
  it('accepts the origin of SVC_PUBLIC_URL', async () => {
    const srv = await startTestServer({ SVC_PUBLIC_URL: 'https://logs.example.com/' });
    try {
      const cookie = `svc_session=${await adminToken(srv)}`;
      const res = await srv.app.inject({
        method: 'POST',
        url: '/api/admin/api-keys',
        headers: {
          cookie,
          host: '10.0.0.5:7300',
          origin: 'https://logs.example.com',
          'content-type': 'application/json',
        },
        payload: { name: 'via-proxy', scopes: ['standard'] },
      });
      assert.equal(res.statusCode, 201);
    } finally {
      await srv.close();
    }
  });
});
