import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, createUser, login } from '../helpers/auth.js';
import { browserSkipReason, newContext, shownCount, signIn, waitFor, shootBothThemes } from './browser.js';
import { ingestNdjson } from './data.js';
import { startUiSession, type UiServer, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI admin tests ${skip}`);

/** A second origin on loopback: it plays a hostile site and counts requests to planted URLs. */
async function startOtherSite(
  page: (svc: string) => string,
  svc: () => string,
): Promise<{ url: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/attack') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(svc()));
      return;
    }
    hits.push(req.url ?? '');
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

async function searchWithKey(url: string, secret: string): Promise<number> {
  return (await fetch(`${url}/api/search?q=*&from=-1h`, { headers: { authorization: `Bearer ${secret}` } })).status;
}

describe("the admin pages and the UI's defences in Chromium", { skip }, () => {
  let session: UiSession;
  let ui: UiServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let other: Awaited<ReturnType<typeof startOtherSite>>;
  const base = () => ui.srv.url;

  before(async () => {
    other = await startOtherSite(
      (svc) =>
        // a cross-site form: the browser sends svc's cookie along (same site: both are 127.0.0.1)
        `<!doctype html><form method="POST" action="${svc}/api/admin/api-keys" enctype="text/plain">` +
        `<input name='{"name":"planted-key","scopes":["admin"],"x":"' value='"}'></form>` +
        `<script>document.forms[0].submit()</script>`,
      () => ui.srv.url,
    );
    ({ ui, browser, ctx, page, errors } = session = await startUiSession());
  });

  after(async () => {
    await session?.close();
    other?.server.close();
  });

  it('creates an API key, shows its secret once, and disables it so the API answers 401', async () => {
    await page.goto(`${base()}/ui/admin/api-keys`);
    await page.click('button:has-text("Create key")');
    await page.fill('input[aria-label=Name]', 'ui-created-key');
    await page.fill('textarea[aria-label=Purpose]', 'made by the browser test');
    await page.click('.modal-foot button:has-text("Create key")');
    const secret = await waitFor('the secret', () => page.locator('[data-testid=secret]').textContent());
    assert.match(secret, /^svk_[0-9A-Za-z]{20,}$/);
    assert.equal(await searchWithKey(base(), secret), 200);
    await page.click('button:has-text("I have copied it")');

    const row = page.locator('tr[data-key="ui-created-key"]');
    await waitFor('the new key in the list', () => row.count());
    assert.ok((await row.textContent())!.includes(`svk_…${secret.slice(-4)}`));
    await page.reload();
    await waitFor('the list after reload', () => row.count());
    assert.equal((await page.content()).includes(secret), false, 'the secret is never shown again');

    await row.locator('button:has-text("Disable")').click();
    await waitFor('the disabled state', async () => (await row.textContent())!.includes('disabled'));
    assert.equal(await searchWithKey(base(), secret), 401);
    await row.locator('button:has-text("Enable")').click();
    await waitFor('the enabled state', async () => (await row.textContent())!.includes('enabled'));
    assert.equal(await searchWithKey(base(), secret), 200);

    await row.locator('button[aria-label="Delete ui-created-key"]').click();
    await page.click('.modal-foot button:has-text("Delete key")');
    await waitFor('the key gone', async () => (await row.count()) === 0);
    assert.equal(await searchWithKey(base(), secret), 401);
  });

  it('creates an ingest token pinned to an environment and shows its secret once', async () => {
    await page.goto(`${base()}/ui/admin/ingest-tokens`);
    await page.click('button:has-text("Create token")');
    await page.fill('input[aria-label=Name]', 'ui-shipper');
    await page.fill('input[aria-label=Index]', 'shipped');
    await page.click('.modal-foot button:has-text("Create token")');
    const secret = await waitFor('the token secret', () => page.locator('[data-testid=secret]').textContent());
    assert.match(secret, /^svi_/);
    const res = await fetch(`${base()}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      body: '{"message":"via the ui token"}\n',
    });
    assert.equal(res.status, 200);
    await page.click('button:has-text("I have copied it")');
  });

  it('marks a key whose owner was deleted "owner removed", and the API refuses it', async () => {
    const ownerId = await createUser(ui.srv, {
      username: 'leaving-admin',
      password: 'leaving-admin-password',
      role: 'admin',
    });
    const session = await login(ui.srv, 'leaving-admin', 'leaving-admin-password');
    const key = (await call(ui.srv, 'POST', '/api/admin/api-keys', {
      token: session,
      body: { name: 'left-behind', scopes: ['admin'] },
      expect: 201,
    })) as { id: string; secret: string };
    await call(ui.srv, 'DELETE', `/api/admin/users/${ownerId}`, { token: ui.admin, expect: 204 });
    await page.goto(`${base()}/ui/admin/api-keys`);
    const badge = page.locator('tr[data-key="left-behind"] [data-testid=owner-state]');
    assert.equal(await waitFor('the owner badge', () => badge.textContent()), 'owner removed');
    assert.equal(await searchWithKey(base(), key.secret), 401);
    // the README's screenshot (the last test) shows the keys an admin would make
    await call(ui.srv, 'DELETE', `/api/admin/api-keys/${key.id}`, { token: ui.admin, expect: 204 });
  });

  it('creates an environment with its retention, and sweeps now showing what was deleted', async () => {
    await page.goto(`${base()}/ui/admin/envs`);
    await page.click('button:has-text("Create environment")');
    await page.fill('input[aria-label=Name]', 'staging');
    await page.fill('input[aria-label="Retention days"]', '14');
    await page.click('.modal-foot button:has-text("Create")');
    await waitFor('the new env', async () =>
      (await page.locator('[data-testid=envs]').textContent())!.includes('14 days'),
    );
    const envs = (await call(ui.srv, 'GET', '/api/admin/envs', { token: ui.admin })) as {
      envs: { name: string; retentionDays?: number }[];
    };
    assert.equal(envs.envs.find((e) => e.name === 'staging')?.retentionDays, 14);

    await page.goto(`${base()}/ui/admin/general`);
    await page.click('button:has-text("Sweep now")');
    const report = await waitFor('the sweep report', () => page.locator('[data-testid=sweep-report]').textContent());
    assert.match(report, /^Deleted 0 events in 0 blocks/);
  });

  it("sets an environment's ingest and search limits in its dialog and shows them in the list", async () => {
    await page.goto(`${base()}/ui/admin/envs`);
    await page.click('button[aria-label="Edit staging"]');
    const dialog = page.locator('dialog[open]');
    await dialog.locator('input[aria-label="Ingest events per second"]').fill('5000');
    await dialog.locator('input[aria-label="Searches at once per user or key"]').fill('2');
    await shootBothThemes(page, 'env-limits', dialog);
    await dialog.locator('.modal-foot button:has-text("Save")').click();
    const cell = page.locator('[data-testid=envs] tr:has-text("staging") [data-testid=env-limits]');
    await waitFor('the limits in the list', async () => (await cell.textContent())?.includes('5,000 events/s'));
    assert.equal(await cell.textContent(), '5,000 events/s, 2 searches per user');
    const envs = (await call(ui.srv, 'GET', '/api/admin/envs', { token: ui.admin })) as {
      envs: { name: string; ingestEventsPerSec?: number; ingestBytesPerSec?: number; maxSearchesPerUser?: number }[];
    };
    const staging = envs.envs.find((e) => e.name === 'staging');
    assert.deepEqual(
      [staging?.ingestEventsPerSec, staging?.ingestBytesPerSec, staging?.maxSearchesPerUser],
      [5000, undefined, 2],
    );
    // emptied, a limit is removed; the retention set before is kept
    await page.click('button[aria-label="Edit staging"]');
    await page.locator('dialog[open] input[aria-label="Searches at once per user or key"]').fill('');
    await page.locator('dialog[open] .modal-foot button:has-text("Save")').click();
    await waitFor('one limit left', async () => (await cell.textContent()) === '5,000 events/s');
    const after = (await call(ui.srv, 'GET', '/api/admin/envs/staging', { token: ui.admin })) as Record<
      string,
      unknown
    >;
    assert.equal(after.maxSearchesPerUser, undefined);
    assert.equal(after.retentionDays, 14);
  });

  it('shows a non-admin no admin pages and only the environments they may read', async () => {
    await createUser(ui.srv, {
      username: 'reader',
      password: 'reader-password',
      role: 'user',
      allow: { envs: ['default'], indexes: ['app'] },
    });
    const c = await newContext(browser);
    const p = await c.newPage();
    await signIn(p, base(), 'reader', 'reader-password');
    await waitFor('the search page', () => p.locator('[data-testid=result-count] strong').count());
    assert.equal(await p.locator('.nav-link:has-text("Admin")').count(), 0);
    const envOptions = await waitFor('the env picker filled from the catalog', async () => {
      const o = await p.locator('select[aria-label=Environment] option').allTextContents();
      return o.some((x) => /^default \(\d/.test(x)) ? o : null;
    });
    assert.deepEqual(
      envOptions.map((o) => o.replace(/ \(.*\)$/, '')),
      ['default', 'All environments'],
    );
    const indexOptions = await p.locator('select[aria-label=Index] option').allTextContents();
    assert.deepEqual(
      indexOptions.map((o) => o.replace(/ \(.*\)$/, '')),
      ['All indexes', 'app'],
    );
    await p.goto(`${base()}/ui/admin/api-keys`);
    await waitFor('the refusal', () => p.locator('text=These pages are for administrators.').count());
    assert.equal(await p.locator('[data-testid=api-keys]').count(), 0);
    await c.close();
  });

  it('signs a user out everywhere from the account menu: their other sessions end too', async () => {
    await createUser(ui.srv, { username: 'roamer', password: 'roamer-password', role: 'user' });
    const elsewhere = await login(ui.srv, 'roamer', 'roamer-password');
    const c = await newContext(browser);
    const p = await c.newPage();
    await signIn(p, base(), 'roamer', 'roamer-password');
    await p.click('button.user-button');
    await p.click('button:has-text("Sign out everywhere")');
    await p.waitForURL((u) => u.pathname.startsWith('/ui/login'));
    assert.equal(
      (await fetch(`${base()}/api/auth/me`, { headers: { authorization: `Bearer ${elsewhere}` } })).status,
      401,
    );
    await c.close();
  });

  it('renders hostile log text as text: no script runs, no planted URL is fetched', async () => {
    const plant = (what: string) => `${other.url}/planted-${what}`;
    const hostile = [
      `<script>window.__pwned = 1; fetch("${plant('script')}")</script> script-marker`,
      `<img src=x onerror="fetch('${plant('img')}')"> img-marker`,
      `<a href="javascript:fetch('${plant('link')}')">click me</a> link-marker`,
    ];
    await ingestNdjson(
      ui.srv,
      ui.ingest,
      'hostile',
      hostile.map((message, i) => ({
        '@timestamp': new Date(Date.now() - i * 1000).toISOString(),
        message,
        host: `<b onmouseover="fetch('${plant('host')}')">h</b>`,
        note: `<svg onload="fetch('${plant('field')}')">`,
      })),
    );
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${base()}/ui/search?${new URLSearchParams({ q: '', index: 'hostile', from: '-1h' })}`);
    assert.equal(await shownCount(page), 3);
    for (let i = 0; i < 3; i++) await page.locator('.event-line').nth(i).click();
    await page.locator('.event-message', { hasText: 'click me' }).first().click();
    await page.locator('button:has-text("JSON")').first().click();
    await page.waitForTimeout(1000);
    const text = await page.locator('[data-testid=events]').textContent();
    assert.ok(text!.includes('<script>window.__pwned = 1;'), 'the script is shown as text');
    assert.ok(text!.includes('<img src=x onerror='), 'the img tag is shown as text');
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(
      await page
        .locator('[data-testid=events] img, [data-testid=events] script, [data-testid=events] a[href^="javascript"]')
        .count(),
      0,
    );
    assert.deepEqual(dialogs, []);
    assert.deepEqual(other.hits, []);
  });

  it('refuses a cross-site form post to an admin endpoint made with the session cookie', async () => {
    const p = await ctx.newPage();
    const [response] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/api/admin/api-keys')),
      p.goto(`${other.url}/attack`),
    ]);
    assert.equal(response.status(), 403);
    assert.match(await response.text(), /cross_site_request/);
    const keys = (await call(ui.srv, 'GET', '/api/admin/api-keys', { token: ui.admin })) as {
      apiKeys: { name: string }[];
    };
    assert.equal(
      keys.apiKeys.some((k) => k.name === 'planted-key'),
      false,
    );
    await p.close();
  });

  it('renders without script errors or CSP violations, and saves the screenshot for the README', async () => {
    await call(ui.srv, 'POST', '/api/admin/api-keys', {
      token: ui.admin,
      body: {
        name: 'grafana-dashboards',
        purpose: 'Read-only dashboards for the SRE team',
        scopes: ['standard'],
        expiresInDays: 90,
        allow: { envs: ['default'], indexes: ['*'], tools: ['*'] },
      },
    });
    await call(ui.srv, 'POST', '/api/admin/api-keys', {
      token: ui.admin,
      body: {
        name: 'claude-desktop',
        purpose: 'MCP access for on-call investigations',
        scopes: ['mcp'],
        allow: { envs: ['*'], indexes: ['*'], tools: ['search', 'aggregate', 'histogram'] },
      },
    });
    await call(ui.srv, 'POST', '/api/admin/api-keys', {
      token: ui.admin,
      body: { name: 'ci-admin', scopes: ['admin'], expiresInDays: 30 },
    });
    await page.goto(`${base()}/ui/admin/api-keys`);
    await waitFor('the keys', () => page.locator('tr[data-key="claude-desktop"]').count());
    await shootBothThemes(page, 'api-keys');
    assert.deepEqual(errors, []);
  });
});
