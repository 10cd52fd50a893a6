import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { MAX_PENDING_PER_BROWSER, REQUEST_TTL_MS, SamlBinding, TICKET_TTL_MS } from '../../src/auth/saml/binding.js';
import { LOGINS_PER_ADDRESS } from '../../src/auth/saml/login-limit.js';
import { makeIdpCerts } from '../helpers/saml-idp.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Binding a SAML login to the browser that started it, without server-side state (docs/saml.md):
 * self-checking request ids, the relay cookie, the sealed ticket the ACS hands to /complete, and the
 * per-address limit on starting logins. The whole flow through a real IdP is in saml-sso.test.ts.
 */

const secret = Buffer.alloc(32, 7);
const T0 = Date.parse('2026-11-26T12:00:00Z');

describe('SamlBinding', () => {
  const b = new SamlBinding(secret);

  it('recognises its own request ids, with their creation time, until they expire', () => {
    const id = b.newRequestId(T0);
    assert.match(id, /^_[0-9a-f]{76}$/, 'an XML NCName');
    assert.equal(b.requestCreatedAt(id, T0 + 1000), T0);
    assert.equal(b.requestCreatedAt(id, T0 + REQUEST_TTL_MS), undefined, 'expired');
  });

  it('refuses an id it did not make: another secret, a changed time, a node-saml id', () => {
    const id = b.newRequestId(T0);
    assert.equal(new SamlBinding(Buffer.alloc(32, 8)).requestCreatedAt(id, T0), undefined);
    const later = `_${(T0 + 60_000).toString(16).padStart(12, '0')}${id.slice(13)}`;
    assert.equal(b.requestCreatedAt(later, T0 + 60_000), undefined, 'the time is under the MAC');
    assert.equal(b.requestCreatedAt('_0123456789abcdef0123456789abcdef01234567', T0), undefined);
  });

  it('keeps the newest logins of one browser in its relay cookie and drops what it did not make', () => {
    let cookie = 'garbage._nothex';
    const ids: string[] = [];
    for (let i = 0; i < MAX_PENDING_PER_BROWSER + 2; i++) {
      ids.push(b.newRequestId(T0 + i));
      cookie = b.withPending(cookie, ids[i], T0 + i);
    }
    assert.deepEqual(b.pendingIds(cookie, T0 + 10), ids.slice(-MAX_PENDING_PER_BROWSER));
  });

  it('opens the tickets it sealed, and not once changed, expired or sealed with another secret', () => {
    const t = {
      userId: 'u1',
      requestId: b.newRequestId(T0),
      next: '/ui/search',
      idp: 'https://idp',
      nameId: 'alice@example.test',
    };
    const sealed = b.seal(t, T0);
    assert.doesNotMatch(
      Buffer.from(sealed, 'base64url').toString('latin1'),
      /alice/,
      'the email is not readable in the URL',
    );
    assert.deepEqual(b.open(sealed, T0 + 1000), t);
    assert.equal(b.open(sealed, T0 + TICKET_TTL_MS), undefined, 'expired');
    const raw = Buffer.from(sealed, 'base64url');
    raw[raw.length - 1] ^= 1;
    assert.equal(b.open(raw.toString('base64url'), T0), undefined, 'changed');
    assert.equal(new SamlBinding(Buffer.alloc(32, 8)).open(sealed, T0), undefined);
    assert.equal(b.open('x', T0), undefined);
  });
});

describe('starting and completing a SAML login on a running svc', () => {
  const certs = makeIdpCerts();
  let srv: TestServer;
  let admin: { id: string; username: string };

  before(async () => {
    srv = await startTestServer({
      SVC_PUBLIC_URL: 'http://127.0.0.1:7300',
      SVC_SAML_SP_ENTITY_ID: 'urn:svc',
      SVC_SAML_IDP_SSO_URL: 'https://idp.example/sso',
      SVC_SAML_IDP_CERT_PATH: join(certs.dir, 'idp.crt'),
    });
    // svc never calls this IdP here: starting a login only builds its URL
    const u = srv.deps.control.doc.users.find((x) => x.role === 'admin');
    assert.ok(u, 'the bootstrap admin');
    admin = u;
  });
  after(async () => {
    await srv?.close();
    rmSync(certs.dir, { recursive: true, force: true });
  });

  const relayOf = (setCookie: string | string[] | undefined) => /svc_saml=([^;]*)/.exec(String(setCookie))?.[1];

  it('sends the browser to the IdP with a relay cookie holding the request id it sent', async () => {
    const res = await srv.app.inject({
      method: 'GET',
      url: '/api/auth/saml/login?next=/ui/search',
      remoteAddress: '192.0.2.1',
    });
    assert.equal(res.statusCode, 302);
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /^svc_saml=_[0-9a-f]{76}; Path=\/api\/auth\/saml; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const request = inflateRawSync(
      Buffer.from(new URL(String(res.headers.location)).searchParams.get('SAMLRequest')!, 'base64'),
    ).toString('utf8');
    assert.match(request, new RegExp(`ID="${relayOf(setCookie)}"`));
  });

  it('writes nothing to the control plane for a flood of logins, and answers 429 beyond the per-address limit', async () => {
    const file = join(srv.dataDir, 'control.json');
    const before = {
      hash: createHash('sha256').update(readFileSync(file)).digest('hex'),
      mtime: statSync(file).mtimeMs,
      version: srv.deps.control.doc.version,
    };
    const codes = new Map<number, number>();
    let limited: Awaited<ReturnType<typeof srv.app.inject>> | undefined;
    for (let i = 0; i < LOGINS_PER_ADDRESS + 40; i++) {
      const res = await srv.app.inject({ method: 'GET', url: '/api/auth/saml/login', remoteAddress: '198.51.100.7' });
      codes.set(res.statusCode, (codes.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 429) limited ??= res;
    }
    assert.deepEqual([...codes.keys()].sort(), [302, 429], JSON.stringify([...codes]));
    assert.ok(limited);
    assert.equal(limited.json().error.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After');
    // another address is not limited by this one
    assert.equal(
      (await srv.app.inject({ method: 'GET', url: '/api/auth/saml/login', remoteAddress: '198.51.100.8' })).statusCode,
      302,
    );
    const after = {
      hash: createHash('sha256').update(readFileSync(file)).digest('hex'),
      mtime: statSync(file).mtimeMs,
      version: srv.deps.control.doc.version,
    };
    assert.deepEqual(after, before, 'the control plane was not written');
  });

  it('signs in the browser whose relay cookie holds the answered request, once', async () => {
    const start = await srv.app.inject({
      method: 'GET',
      url: '/api/auth/saml/login?next=/ui/search',
      remoteAddress: '192.0.2.2',
    });
    const relay = relayOf(start.headers['set-cookie'])!;
    const ticket = srv.deps.sso.binding.seal(
      { userId: admin.id, requestId: relay, next: '/ui/search?q=x' },
      Date.now(),
    );
    const done = await srv.app.inject({
      method: 'GET',
      url: `/api/auth/saml/complete?ticket=${ticket}`,
      headers: { cookie: `svc_saml=${relay}` },
    });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/ui/search?q=x');
    const cookies = ([] as string[]).concat(done.headers['set-cookie'] ?? []);
    assert.ok(
      cookies.some((c) => /^svc_session=[^;]+;/.test(c)),
      JSON.stringify(cookies),
    );
    assert.ok(
      cookies.some((c) => /^svc_saml=; .*Max-Age=0/.test(c)),
      'the relay cookie is emptied',
    );
    // the same ticket with the cookie the browser now has: nothing
    const again = await srv.app.inject({
      method: 'GET',
      url: `/api/auth/saml/complete?ticket=${ticket}`,
      headers: { cookie: 'svc_saml=' },
    });
    assert.deepEqual(
      [again.statusCode, again.headers.location, again.headers['set-cookie']],
      [303, '/ui/sso-failed', undefined],
    );
  });

  it('refuses the ticket in a browser that did not start the login: saml_response_invalid (other_browser)', async () => {
    const victim = await srv.app.inject({ method: 'GET', url: '/api/auth/saml/login', remoteAddress: '192.0.2.3' });
    const attacker = await srv.app.inject({ method: 'GET', url: '/api/auth/saml/login', remoteAddress: '192.0.2.4' });
    const ticket = srv.deps.sso.binding.seal(
      {
        userId: admin.id,
        requestId: relayOf(attacker.headers['set-cookie'])!,
        next: '/ui/search',
        nameId: 'mallory@example.test',
      },
      Date.now(),
    );
    for (const cookie of [undefined, `svc_saml=${relayOf(victim.headers['set-cookie'])}`]) {
      const res = await srv.app.inject({
        method: 'GET',
        url: `/api/auth/saml/complete?ticket=${ticket}`,
        headers: cookie ? { cookie } : {},
      });
      assert.deepEqual(
        [res.statusCode, res.headers.location, res.headers['set-cookie']],
        [303, '/ui/sso-failed', undefined],
        cookie ?? 'no cookie',
      );
    }
    const logged = await searchSelfLog(srv, 'event=saml_response_invalid cause=other_browser', '_svclogs');
    assert.equal(
      logged.events.filter((e) => e.fields.name_id === 'mallory@example.test').length,
      2,
      'one event each, naming who the IdP vouched for',
    );
  });
});
