import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { call, createEnv, createIngestToken, createUser, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { browserSkipReason, newContext, shownCount, signIn, recordToasts, sawToast, waitFor } from './browser.js';
import { ingestNdjson } from './data.js';
import { startUiSession, type UiSession } from './fixture.js';

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const skip = browserSkipReason();
if (skip) console.log(`# web UI monitor editor tests ${skip}`);

interface MonitorJson {
  name: string;
  query: string;
  env: string;
  index?: string;
  window: string;
  destinations: unknown[];
}

/**
 * The monitor editor in Chromium against a real svc process: a search saved as a monitor keeps its
 * query, env and index; the query is the search page's CodeMirror editor, with the parser's error
 * underlined and said under it; env and index are pickers of the catalog; a server error that names
 * a field shows at that field; a monitor without destination is saved only once that is confirmed.
 */
describe('the monitor editor in Chromium', { skip }, () => {
  let s: UiSession;
  let page: Page;
  const monitors = async () =>
    ((await call(s.ui.srv, 'GET', '/api/monitors', { token: s.ui.admin })) as { monitors: MonitorJson[] }).monitors;
  const dialog = () => page.locator('dialog[open]');
  const editorText = () => dialog().locator('[data-testid=query-editor]').textContent();

  before(async () => {
    s = await startUiSession();
    page = s.page;
    // a second env with events of its own: the env picker lists what the catalog does
    await createEnv(s.ui.srv, 'staging');
    const token = await createIngestToken(s.ui.srv, { env: 'staging' });
    await ingestNdjson(s.ui.srv, token, 'jobs', [
      { time: new Date().toISOString(), message: 'job done', level: 'info' },
    ]);
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await s?.close();
  });

  it('saves a search as a monitor with its query, env and index, after confirming it has no destination', async () => {
    const q = 'level=error | stats count by host';
    const search = `${s.ui.srv.url}/ui/search?q=${encodeURIComponent(q)}&env=default&index=app&from=-6h`;
    const before = page.url();
    await page.goto(search);
    await shownCount(page);
    await page.click('[data-testid=save-monitor]');
    await dialog().waitFor();
    assert.equal(await dialog().locator('h2').textContent(), 'Save search as monitor');
    assert.equal(await editorText(), q);
    assert.equal(await dialog().getByLabel('Environment', { exact: true }).inputValue(), 'default');
    assert.equal(await dialog().getByLabel('Index', { exact: true }).inputValue(), 'app');
    assert.equal(await dialog().getByLabel('Over the last').inputValue(), '6h', "the search's range is the window");
    await dialog().getByLabel('Name', { exact: true }).fill('errors per host');
    await dialog().getByLabel('Fires when').fill('count > 3');
    await page.click('.modal-foot button:has-text("Preview")');
    assert.match(
      await waitFor('the preview', () => dialog().locator('[data-testid=preview]').textContent()),
      /Would (not )?fire now/,
    );
    await dialog().screenshot({ path: join(SHOTS, 'monitor-from-search.png') });

    await page.click('.modal-foot button:has-text("Create monitor")');
    const warning = dialog().locator('[data-testid=no-destination][role=alert]');
    await warning.waitFor();
    assert.match((await warning.textContent())!, /No destination: this monitor will only record its runs/);
    assert.deepEqual(await monitors(), [], 'nothing is saved before the user confirms');
    await recordToasts(page);
    await page.click('.modal-foot button:has-text("Create without destination")');
    await dialog().waitFor({ state: 'detached' });
    await sawToast(page, 'Monitor "errors per host" created');

    const [m] = await monitors();
    assert.deepEqual(
      { name: m.name, query: m.query, env: m.env, index: m.index, window: m.window, destinations: m.destinations },
      { name: 'errors per host', query: q, env: 'default', index: 'app', window: '6h', destinations: [] },
    );
    // the search is still there: same URL, its results on screen, and Back leaves it as usual
    assert.equal(page.url(), search);
    assert.ok((await shownCount(page)) > 0);
    await page.goBack();
    assert.equal(page.url(), before);
  });

  it('starts a search over all envs at the first env the user can read when that is not default', async () => {
    await createUser(s.ui.srv, {
      username: 'stager',
      password: 'stager-password-123',
      role: 'user',
      allow: { envs: ['staging'] },
    });
    const ctx = await newContext(s.browser);
    const p = await ctx.newPage();
    try {
      await signIn(p, s.ui.srv.url, 'stager', 'stager-password-123', '/ui/search?q=&env=*&from=-1h');
      await shownCount(p);
      await p.click('[data-testid=save-monitor]');
      const d = p.locator('dialog[open]');
      await d.waitFor();
      await waitFor(
        'the readable env',
        async () => (await d.getByLabel('Environment', { exact: true }).inputValue()) === 'staging',
      );
      assert.match((await d.locator('[data-testid=monitor-env-note]').textContent())!, /all environments.*staging/);
    } finally {
      await ctx.close();
    }
  });

  it('edits the query in CodeMirror, offers the catalog envs, and shows a parse error under the query', async () => {
    await page.goto(`${s.ui.srv.url}/ui/monitors`);
    await page.click('button:has-text("New monitor")');
    await dialog().waitFor();
    const query = dialog().locator('.cm-editor [data-testid=query-editor][aria-label=Search]');
    assert.equal(await query.count(), 1, 'the query is a CodeMirror editor named Search');
    const envs = await dialog().getByLabel('Environment', { exact: true }).locator('option').allTextContents();
    assert.ok(
      envs.some((e) => e.startsWith('default (')) && envs.some((e) => e.startsWith('staging (1)')),
      envs.join(', '),
    );
    await dialog().getByLabel('Environment', { exact: true }).selectOption('staging');
    await waitFor('the indexes of staging', async () =>
      (await dialog().getByLabel('Index', { exact: true }).locator('option').allTextContents()).includes('jobs (1)'),
    );

    await query.click();
    await page.keyboard.type('error | stats count by');
    await page.keyboard.press('Escape'); // the completion list, not the dialog
    await page.click('.modal-foot button:has-text("Preview")');
    const error = dialog().locator('.field-error');
    await error.waitFor();
    const said = (await call(s.ui.srv, 'POST', '/api/monitors/preview', {
      token: s.ui.admin,
      body: {
        name: 'x',
        query: 'error | stats count by',
        env: 'staging',
        every: '5m',
        condition: { threshold: 'count > 0' },
      },
      expect: 400,
    })) as { error: { message: string; field: string } };
    assert.equal(said.error.field, 'query');
    assert.equal((await error.textContent())!.toLowerCase(), said.error.message.replace(/^query: /, '').toLowerCase());
    assert.equal(await query.getAttribute('aria-invalid'), 'true');
    assert.equal(await query.getAttribute('aria-describedby'), await error.getAttribute('id'));
    assert.equal(await dialog().locator('.cm-lintRange-error').count(), 1, 'the parser error is underlined');
    assert.equal(await dialog().locator('.alert-error').count(), 0, 'not at the top of the dialog');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Search');
    await page.keyboard.type(' host');
    assert.equal(await dialog().locator('.field-error').count(), 0, 'an edited query is judged again');
    await page.click('.modal-foot button:has-text("Cancel")');
  });

  for (const dark of [false, true]) {
    it(`shows a server error at the field it names, focused (${dark ? 'dark' : 'light'} theme)`, async () => {
      const ctx = await newContext(s.browser, { dark });
      const p = await ctx.newPage();
      await signIn(p, s.ui.srv.url, 'admin', TEST_ADMIN_PASSWORD);
      await p.goto(`${s.ui.srv.url}/ui/search?q=${encodeURIComponent('"Failed password"')}&index=app&from=-1h`);
      await p.click('[data-testid=save-monitor]');
      const d = p.locator('dialog[open]');
      await d.waitFor();
      await d.getByLabel('Name', { exact: true }).fill(`failed logins ${dark ? 'dark' : 'light'}`);
      // svc does not send to loopback addresses (SVC_OUTBOUND_ALLOW is not set): the server says so
      await d.getByLabel('Webhook').fill('http://127.0.0.1:9/hook');
      await p.click('.modal-foot button:has-text("Create monitor")');
      const webhook = d.getByLabel('Webhook');
      await waitFor('the webhook marked invalid', async () => (await webhook.getAttribute('aria-invalid')) === 'true');
      const describedBy = (await webhook.getAttribute('aria-describedby'))!;
      const message = (await p.locator(`[id="${describedBy}"]`).textContent())!;
      assert.match(message, /127\.0\.0\.1|loopback|not a public/i);
      assert.doesNotMatch(message, /^destinations\.0\.webhook/, 'the field is not named twice');
      assert.equal(await d.locator('.alert-error').count(), 0, 'not at the top of the dialog');
      assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('aria-invalid')), 'true');
      assert.equal(
        await p.evaluate(() => document.activeElement?.getAttribute('placeholder')),
        'https://hooks.slack.com/services/…',
      );
      await d.screenshot({ path: join(SHOTS, dark ? 'monitor-field-error-dark.png' : 'monitor-field-error.png') });
      if (dark) {
        // the prefilled editor, as the light test shot it
        await p.click('.modal-foot button:has-text("Cancel")');
        await p.goto(
          `${s.ui.srv.url}/ui/search?q=${encodeURIComponent('level=error | stats count by host')}&index=app&from=-6h`,
        );
        await shownCount(p);
        await p.click('[data-testid=save-monitor]');
        await d.waitFor();
        await d.getByLabel('Name', { exact: true }).fill('errors per host');
        await d.screenshot({ path: join(SHOTS, 'monitor-from-search-dark.png') });
      }
      await ctx.close();
    });
  }

  it('says "1 row" of a run that found one, not "1 rows"', async () => {
    await call(s.ui.srv, 'POST', '/api/monitors', {
      token: s.ui.admin,
      body: {
        name: 'one row',
        query: 'level=error | stats count',
        env: 'default',
        index: 'app',
        every: '5m',
        window: '6h',
        condition: { threshold: 'count > 0' },
      },
      expect: 201,
    });
    const list = await monitors();
    const id = (list as unknown as { id: string; name: string }[]).find((m) => m.name === 'one row')!.id;
    await call(s.ui.srv, 'POST', `/api/monitors/${id}/run`, { token: s.ui.admin, expect: 200 });
    await page.goto(`${s.ui.srv.url}/ui/monitors`);
    const row = page.locator('tr[data-monitor="one row"]');
    const text = await waitFor('the last run', async () => {
      const t = await row.textContent();
      return t?.includes(' ms') || t?.includes(' s') ? t : undefined;
    });
    assert.match(text, /1 row, \d/);
    assert.doesNotMatch(text, /1 rows/);
    assert.deepEqual(s.errors, []);
  });
});
