import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call, createUser, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { freePort } from '../helpers/ports.js';
import { idpSkipReason, makeIdpCerts, startIdp, type Idp, type IdpCerts } from '../helpers/saml-idp.js';
import { browserSkipReason, launchBrowser, newContext, waitFor } from '../web/browser.js';

/**
 * SAML single sign-on end to end: a real IdP (SimpleSAMLphp), two real svc processes sharing one
 * control plane (SVC_STORE), and Chromium going svc login → IdP form → ACS → signed in. Every
 * failure must end on the one generic page and be recorded as its exact saml_* event.
 */

const skip = browserSkipReason() || idpSkipReason();
if (skip) console.log(`# SAML tests ${skip}`);

const SP = 'urn:svc-test:sp';
const OTHER_SP = 'urn:svc-test:other-sp';
const GENERIC = 'Single sign-on failed. Contact your administrator.';

interface SelfLogEvent {
  time: string;
  message: string;
  fields: Record<string, unknown>;
}

describe('SAML single sign-on against SimpleSAMLphp, in Chromium', { skip }, () => {
  let certs: IdpCerts;
  let idp: Idp;
  let expiredIdp: Idp;
  let a: ProcessServer;
  let b: ProcessServer;
  let browser: Browser;
  let tokenA: string;
  let tokenB: string;
  let aliceId: string;
  let portB: number;
  let shared: string;
  const dirs: string[] = [];

  const tmp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };

  async function startNode(port: number, shared: string, extra: Record<string, string> = {}): Promise<ProcessServer> {
    return startServerProcess({
      SVC_LISTEN: `127.0.0.1:${port}`,
      SVC_DATA_DIR: tmp('svc-sso-node-'),
      SVC_STORE: shared,
      SVC_CONTROL_KEY_PATH: join(shared, 'control.key'),
      SVC_JWT_SECRET_PATH: join(shared, 'jwt.secret'),
      SVC_BLOCK_SYNC_SECS: '1',
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SVC_SAML_SP_ENTITY_ID: SP,
      SVC_SAML_IDP_METADATA: idp.metadataUrl,
      ...extra,
    });
  }

  before(async () => {
    certs = makeIdpCerts();
    const portA = await freePort();
    portB = await freePort();
    const acsUrl = `http://127.0.0.1:${portA}/api/auth/saml/acs`;
    idp = await startIdp({ certs, spEntityId: SP, otherSpEntityId: OTHER_SP, acsUrl });
    // the same IdP (same entity id and key) issuing assertions that expired two minutes before they were sent
    expiredIdp = await startIdp({ certs, spEntityId: SP, acsUrl, assertionLifetime: -120, entityId: idp.entityId });
    shared = tmp('svc-sso-store-');
    a = await startNode(portA, shared);
    b = await startNode(portB, shared);
    tokenA = await adminToken(a);
    tokenB = await adminToken(b);
    // known by her email, written in another case than the IdP sends it
    aliceId = await createUser(a, { username: 'alice.local', password: 'alice-local-password', role: 'user' });
    await call(a, 'PATCH', `/api/admin/users/${aliceId}`, { token: tokenA, body: { email: 'Alice@Example.TEST' } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([idp?.stop(), expiredIdp?.stop()]);
    for (const d of [...dirs, certs?.dir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** Patches Admin → General's single sign-on settings on node A (every node shares them). */
  const setSaml = (saml: Record<string, unknown>) =>
    call(a, 'PATCH', '/api/admin/settings', { token: tokenA, body: { saml } });

  /** The `saml_*` events a node recorded since `since`, waiting for the self-log to write them. */
  async function samlEvents(node: ProcessServer, token: string, event: string, since: string): Promise<SelfLogEvent[]> {
    const q = new URLSearchParams({ q: `event=${event}`, env: '_system', index: '_svclogs', from: since });
    return waitFor(`${event} in _svclogs`, async () => {
      const r = (await call(node, 'GET', `/api/search?${q}`, { token })) as { events: SelfLogEvent[] };
      return r.events.length > 0 ? r.events : null;
    });
  }

  /** Exactly one `event` since `since`, carrying the IdP, and never an assertion. */
  async function assertRecorded(
    node: ProcessServer,
    token: string,
    event: string,
    since: string,
    expect: Record<string, unknown> = {},
  ): Promise<SelfLogEvent> {
    const events = await samlEvents(node, token, event, since);
    assert.equal(events.length, 1, `one ${event}: ${JSON.stringify(events.map((e) => e.message))}`);
    const e = events[0];
    for (const [k, v] of Object.entries(expect))
      assert.equal(e.fields[k], v, `${event}.${k} in ${JSON.stringify(e.fields)}`);
    if (event !== 'saml_login')
      assert.ok(typeof e.fields.reason === 'string' && e.fields.reason.length > 0, 'a reason');
    assert.doesNotMatch(JSON.stringify(e), /<saml|<samlp|PHN|SignatureValue/, 'no assertion in the record');
    return e;
  }

  /** Starts at svc's login page, signs in at the IdP's form; `acs` decides what happens to the answer. */
  async function ssoAttempt(
    ctx: BrowserContext,
    user: string,
    password: string,
    opts: { next?: string; acs?: 'pass' | 'hold' } = {},
  ): Promise<{ page: Page; samlResponse: string }> {
    const page = await ctx.newPage();
    let samlResponse = '';
    await page.route(`${a.url}/api/auth/saml/acs`, async (route) => {
      samlResponse = new URLSearchParams(route.request().postData() ?? '').get('SAMLResponse') ?? '';
      // hold: keep the answer from svc, so a test can post it (or a changed copy) itself
      if (opts.acs === 'hold') await route.abort();
      else await route.continue();
    });
    await page.goto(`${a.url}/ui/login${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ''}`);
    await page.click('text=Sign in with SSO');
    await page.waitForURL((u) => u.href.startsWith(idp.url) || u.href.startsWith(expiredIdp.url));
    await page.fill('input[name=username]', user);
    await page.fill('input[name=password]', password);
    await page.locator('button[type=submit], input[type=submit]').first().click();
    await waitFor('the answer posted to the ACS', () => samlResponse);
    return { page, samlResponse };
  }

  /** Posts a form to a node's ACS from the browser, as an IdP's page would. */
  async function postToAcs(ctx: BrowserContext, node: ProcessServer, samlResponse: string): Promise<Page> {
    const page = await ctx.newPage();
    await page.setContent(
      `<form method="POST" action="${node.url}/api/auth/saml/acs"><input type="hidden" name="SAMLResponse"></form>`,
    );
    await page
      .locator('input[name=SAMLResponse]')
      .evaluate((el, v) => ((el as HTMLInputElement).value = v), samlResponse);
    await page.locator('form').evaluate((f) => (f as HTMLFormElement).submit());
    return page;
  }

  async function assertGenericPage(page: Page): Promise<void> {
    await page.waitForURL((u) => u.pathname === '/ui/sso-failed');
    const text = await waitFor('the generic page', () => page.locator('[data-testid=sso-failed]').textContent());
    assert.ok(text.includes(GENERIC), text);
    assert.equal(
      await page.locator('[data-testid=sso-failed] a[href="/ui/login"]').count(),
      1,
      'a link back to the login page',
    );
  }

  // the nodes and the test share this machine's clock: an event of this test is never older
  const now = () => new Date().toISOString();

  it("offers single sign-on on the login page and publishes svc's SP metadata", async () => {
    const opts = (await call(a, 'GET', '/api/auth/options')) as { saml: { enabled: boolean } };
    assert.equal(opts.saml.enabled, true);
    const res = await fetch(`${a.url}/api/auth/saml/metadata`);
    assert.equal(res.status, 200);
    const xml = await res.text();
    assert.match(xml, new RegExp(`entityID="${SP}"`));
    assert.match(xml, new RegExp(`Location="${a.url}/api/auth/saml/acs"`));
  });

  it('signs a known user in through the IdP and back to the page they came from; the session searches', async () => {
    const since = now();
    const ctx = await newContext(browser);
    const next = '/ui/search?q=error&from=-1h';
    const { page } = await ssoAttempt(ctx, 'alice', 'alice-password', { next });
    await page.waitForURL((u) => u.pathname === '/ui/search');
    assert.equal(new URL(page.url()).search, '?q=error&from=-1h');
    const me = (await (await ctx.request.get(`${a.url}/api/auth/me`)).json()) as { kind: string; name: string };
    assert.deepEqual([me.kind, me.name], ['user', 'alice.local']);
    const search = await ctx.request.get(`${a.url}/api/search?q=*&from=-1h`);
    assert.equal(search.status(), 200);
    await waitFor('the account menu', () => page.locator('button.user-button:has-text("alice.local")').count());
    await assertRecorded(a, tokenA, 'saml_login', since, {
      user: 'alice.local',
      name_id: 'alice@example.test',
      idp: idp.entityId,
    });

    // the same session on the other node: one control plane, one JWT secret
    const other = await fetch(`${b.url}/api/auth/me`, {
      headers: { cookie: (await ctx.cookies(a.url)).map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    assert.equal(other.status, 200);
    // logout ends it everywhere
    await ctx.request.post(`${a.url}/api/auth/logout`, { headers: { 'x-svc-request': '1' } });
    assert.equal((await ctx.request.get(`${a.url}/api/auth/me`)).status(), 401);
    await ctx.close();
  });

  it("refuses a response signed with another certificate than the IdP's: saml_signature_invalid", async () => {
    await setSaml({ idpCert: certs.wrongCert });
    try {
      const since = now();
      const ctx = await newContext(browser);
      const { page } = await ssoAttempt(ctx, 'alice', 'alice-password');
      await assertGenericPage(page);
      await assertRecorded(a, tokenA, 'saml_signature_invalid', since, {
        name_id: 'alice@example.test',
        idp: idp.entityId,
      });
      assert.equal((await ctx.request.get(`${a.url}/api/auth/me`)).status(), 401);
      await ctx.close();
    } finally {
      await setSaml({ idpCert: null });
    }
  });

  it('refuses a response changed after the IdP signed it: saml_signature_invalid', async () => {
    const ctx = await newContext(browser);
    const { samlResponse } = await ssoAttempt(ctx, 'alice', 'alice-password', { acs: 'hold' });
    // the same signed XML, naming another user
    const xml = Buffer.from(samlResponse, 'base64')
      .toString('utf8')
      .replaceAll('alice@example.test', 'admin@example.test');
    const since = now();
    const page = await postToAcs(ctx, a, Buffer.from(xml).toString('base64'));
    await assertGenericPage(page);
    await assertRecorded(a, tokenA, 'saml_signature_invalid', since, { name_id: 'admin@example.test' });
    await ctx.close();
  });

  it('refuses an assertion made for another service provider: saml_audience_mismatch', async () => {
    // only an IdP-initiated login lets the IdP choose the audience, so allow those for this test
    await setSaml({ idpInitiated: true });
    try {
      const since = now();
      const ctx = await newContext(browser);
      const page = await ctx.newPage();
      await page.goto(idp.idpInitiatedUrl(OTHER_SP));
      await page.fill('input[name=username]', 'alice');
      await page.fill('input[name=password]', 'alice-password');
      await page.locator('button[type=submit], input[type=submit]').first().click();
      await assertGenericPage(page);
      const e = await assertRecorded(a, tokenA, 'saml_audience_mismatch', since, { name_id: 'alice@example.test' });
      assert.match(String(e.fields.reason), new RegExp(OTHER_SP));
      await ctx.close();
    } finally {
      await setSaml({ idpInitiated: null });
    }
  });

  it('refuses an IdP-initiated login while those are off: saml_response_invalid (unsolicited)', async () => {
    const since = now();
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(idp.idpInitiatedUrl(SP));
    await page.fill('input[name=username]', 'alice');
    await page.fill('input[name=password]', 'alice-password');
    await page.locator('button[type=submit], input[type=submit]').first().click();
    await assertGenericPage(page);
    await assertRecorded(a, tokenA, 'saml_response_invalid', since, { cause: 'unsolicited' });
    await ctx.close();
  });

  it('refuses an assertion that expired before it arrived: saml_assertion_expired', async () => {
    await setSaml({ idpSsoUrl: expiredIdp.ssoUrl });
    try {
      const since = now();
      const ctx = await newContext(browser);
      const { page } = await ssoAttempt(ctx, 'alice', 'alice-password');
      await assertGenericPage(page);
      await assertRecorded(a, tokenA, 'saml_assertion_expired', since, {
        name_id: 'alice@example.test',
        cause: 'expired',
      });
      await ctx.close();
    } finally {
      await setSaml({ idpSsoUrl: null });
    }
  });

  it('refuses the same response posted again, to the same node and to another one: saml_assertion_replayed', async () => {
    const ctx = await newContext(browser);
    const { page, samlResponse } = await ssoAttempt(ctx, 'alice', 'alice-password');
    await page.waitForURL((u) => u.pathname === '/ui/search');
    const since = now();
    const again = await newContext(browser);
    await assertGenericPage(await postToAcs(again, a, samlResponse));
    const e = await assertRecorded(a, tokenA, 'saml_assertion_replayed', since, { name_id: 'alice@example.test' });
    assert.ok(e.fields.request_id, 'the request id');
    // node B also sees node A's events once A publishes them to the shared store: count from here
    const sinceB = now();
    await assertGenericPage(await postToAcs(again, b, samlResponse));
    await assertRecorded(b, tokenB, 'saml_assertion_replayed', sinceB, { name_id: 'alice@example.test' });
    assert.equal((await again.request.get(`${a.url}/api/auth/me`)).status(), 401);
    await Promise.all([ctx.close(), again.close()]);
  });

  it('refuses an answer posted by a browser that did not start the login (login CSRF): saml_response_invalid (other_browser)', async () => {
    const victim = await newContext(browser);
    const attacker = await newContext(browser);
    // the attacker signs in at the IdP as themselves and keeps the signed answer from svc
    const { samlResponse } = await ssoAttempt(attacker, 'alice', 'alice-password', { acs: 'hold' });
    const since = now();
    // and posts it into the victim's browser, as a page of theirs could
    await assertGenericPage(await postToAcs(victim, a, samlResponse));
    await assertRecorded(a, tokenA, 'saml_response_invalid', since, {
      cause: 'other_browser',
      name_id: 'alice@example.test',
    });
    assert.equal(
      (await victim.request.get(`${a.url}/api/auth/me`)).status(),
      401,
      'the victim is not signed in as the attacker',
    );
    await Promise.all([victim.close(), attacker.close()]);
  });

  it('completes a login started on one node whose answer reaches another', async () => {
    const ctx = await newContext(browser);
    const { samlResponse } = await ssoAttempt(ctx, 'alice', 'alice-password', { acs: 'hold' });
    // cookies ignore ports: the relay cookie node A set reaches node B, as behind one load balancer
    const page = await postToAcs(ctx, b, samlResponse);
    await page.waitForURL((u) => u.pathname === '/ui/search');
    const me = (await (await ctx.request.get(`${b.url}/api/auth/me`)).json()) as { name: string };
    assert.equal(me.name, 'alice.local');
    await ctx.close();
  });

  it("signs in through an IdP on another site, whose post to the ACS carries none of svc's cookies", async () => {
    // svc as http://localhost, the IdP as http://127.0.0.1: two sites, as in production (ports do not make a site)
    const portC = await freePort();
    const svcC = `http://localhost:${portC}`;
    const idpC = await startIdp({ certs, spEntityId: SP, acsUrl: `${svcC}/api/auth/saml/acs` });
    const c = await startServerProcess({
      SVC_LISTEN: `127.0.0.1:${portC}`,
      SVC_DATA_DIR: tmp('svc-sso-cross-site-'),
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_PUBLIC_URL: svcC,
      SVC_SAML_SP_ENTITY_ID: SP,
      SVC_SAML_IDP_METADATA: idpC.metadataUrl,
    });
    const ctx = await newContext(browser);
    try {
      const id = await createUser(c, { username: 'alice.local', password: 'alice-local-password', role: 'user' });
      await call(c, 'PATCH', `/api/admin/users/${id}`, {
        token: await adminToken(c),
        body: { email: 'alice@example.test' },
      });
      const page = await ctx.newPage();
      let acsCookies: string | undefined;
      await page.route(`${svcC}/api/auth/saml/acs`, async (route) => {
        acsCookies = (await route.request().allHeaders()).cookie ?? '';
        await route.continue();
      });
      await page.goto(`${svcC}/ui/login`);
      await page.click('text=Sign in with SSO');
      await page.waitForURL((u) => u.href.startsWith(idpC.url));
      assert.equal(
        (await ctx.cookies(`${svcC}/api/auth/saml/complete`)).filter((k) => k.name === 'svc_saml').length,
        1,
        'the relay cookie was set',
      );
      await page.fill('input[name=username]', 'alice');
      await page.fill('input[name=password]', 'alice-password');
      await page.locator('button[type=submit], input[type=submit]').first().click();
      await page.waitForURL((u) => u.href.startsWith(`${svcC}/ui/search`));
      assert.doesNotMatch(
        acsCookies ?? 'not posted',
        /svc_saml=|not posted/,
        'a cross-site post carries no SameSite=Lax cookie',
      );
      const me = (await (await ctx.request.get(`${svcC}/api/auth/me`)).json()) as { name: string };
      assert.equal(me.name, 'alice.local');
    } finally {
      await ctx.close();
      await c.stop();
      await idpC.stop();
    }
  });

  it('refuses an answer to a request svc does not know: saml_response_invalid (unknown_request)', async () => {
    const ctx = await newContext(browser);
    const { samlResponse } = await ssoAttempt(ctx, 'alice', 'alice-password', { acs: 'hold' });
    // a first, broken post uses up the request (node-saml forgets a request once it is answered)
    const broken = Buffer.from(
      Buffer.from(samlResponse, 'base64').toString('utf8').replace('alice@example.test', 'eve@example.test'),
    ).toString('base64');
    await assertGenericPage(await postToAcs(ctx, a, broken));
    const since = now();
    await assertGenericPage(await postToAcs(ctx, a, samlResponse));
    await assertRecorded(a, tokenA, 'saml_response_invalid', since, { cause: 'unknown_request' });
    await ctx.close();
  });

  it('refuses a user the IdP knows but svc does not, creating nobody: saml_user_unknown', async () => {
    const since = now();
    const ctx = await newContext(browser);
    const { page } = await ssoAttempt(ctx, 'mallory', 'mallory-password');
    await assertGenericPage(page);
    await assertRecorded(a, tokenA, 'saml_user_unknown', since, { name_id: 'mallory@example.test' });
    const users = (await call(a, 'GET', '/api/admin/users', { token: tokenA })) as {
      users: { username: string; email: string | null }[];
    };
    assert.equal(
      users.users.some((u) => /mallory/.test(`${u.username} ${u.email}`)),
      false,
    );
    await ctx.close();
  });

  it('refuses a disabled user: saml_user_disabled', async () => {
    await call(a, 'POST', `/api/admin/users/${aliceId}/disable`, { token: tokenA });
    try {
      const since = now();
      const ctx = await newContext(browser);
      const { page } = await ssoAttempt(ctx, 'alice', 'alice-password');
      await assertGenericPage(page);
      await assertRecorded(a, tokenA, 'saml_user_disabled', since, { name_id: 'alice@example.test' });
      await ctx.close();
    } finally {
      await call(a, 'POST', `/api/admin/users/${aliceId}/enable`, { token: tokenA });
    }
  });

  it('refuses a post that is no SAML response: saml_response_invalid (malformed)', async () => {
    const since = now();
    const ctx = await newContext(browser);
    await assertGenericPage(await postToAcs(ctx, a, Buffer.from('<html>not saml</html>').toString('base64')));
    await assertRecorded(a, tokenA, 'saml_response_invalid', since, { cause: 'malformed' });
    await ctx.close();
  });

  it('refuses settings that cannot work when an admin saves them, naming the field', async () => {
    const bad = async (saml: Record<string, unknown>, field: string, message: RegExp) => {
      const err = (await call(a, 'PATCH', '/api/admin/settings', { token: tokenA, body: { saml }, expect: 400 })) as {
        error: { field: string; message: string };
      };
      assert.equal(err.error.field, field);
      assert.match(err.error.message, message);
    };
    await bad({ idpCert: 'not a certificate' }, 'saml.idpCert', /not an X\.509 certificate/);
    await bad({ idpSsoUrl: 'ftp://idp.example/sso' }, 'saml.idpSsoUrl', /not an http\(s\) URL/);
    await bad({ clockSkewSecs: -5 }, 'saml.clockSkewSecs', /greater than or equal to 0/);
    const settings = (await call(a, 'GET', '/api/admin/settings', { token: tokenA })) as {
      settings: { saml?: Record<string, unknown> };
      sso: { usable: boolean; fromEnv: string[]; envValues: Record<string, string> };
    };
    assert.deepEqual(settings.settings.saml ?? {}, {}, 'nothing was stored');
    assert.equal(settings.sso.usable, true);
    assert.deepEqual(settings.sso.fromEnv.sort(), ['idpMetadata', 'spEntityId']);
    assert.deepEqual(settings.sso.envValues, { idpMetadata: idp.metadataUrl, spEntityId: SP });
  });

  it('ends single sign-on sessions on every node when a node starts with SVC_ADMIN_RESET', async () => {
    const ctx = await newContext(browser);
    const { page } = await ssoAttempt(ctx, 'alice', 'alice-password');
    await page.waitForURL((u) => u.pathname === '/ui/search');
    assert.equal((await ctx.request.get(`${a.url}/api/auth/me`)).status(), 200);
    await b.stop();
    b = await startNode(portB, shared, { SVC_ADMIN_RESET: '1' });
    // node A picks the reset up from the shared control plane (SVC_BLOCK_SYNC_SECS=1)
    await waitFor(
      'the SSO session to end on node A',
      async () => (await ctx.request.get(`${a.url}/api/auth/me`)).status() === 401,
    );
    await ctx.close();
  });
});
