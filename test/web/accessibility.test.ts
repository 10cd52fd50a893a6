import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { call, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { browserSkipReason, newContext, signIn } from './browser.js';
import { startUiSession, type UiSession } from './fixture.js';

/**
 * axe-core (Deque's rules for WCAG 2.x) over every page of the UI and every dialog (context, time
 * picker, shortcut sheet, monitor editor, create key, the one-time key, a delete confirmation, a
 * dashboard and its panel editor), in the
 * light and the dark theme: no critical, serious or moderate violation. axe runs in the page as the
 * browser renders it (injected through the DevTools protocol, which the page's CSP does not govern).
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const skip = browserSkipReason();
if (skip) console.log(`# accessibility tests ${skip}`);

interface Violation {
  id: string;
  impact: string | null;
  nodes: { target: string[]; failureSummary?: string }[];
}

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(
    async () =>
      (
        await (window as unknown as { axe: { run: (d: Document) => Promise<{ violations: Violation[] }> } }).axe.run(
          document,
        )
      ).violations,
  );
  return found
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.impact === 'moderate')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility of every page (axe-core)', { skip }, () => {
  let session: UiSession;
  before(async () => {
    session = await startUiSession();
  });
  after(async () => {
    await session?.close();
  });

  for (const dark of [false, true]) {
    const theme = dark ? 'dark' : 'light';
    it(`has no critical, serious or moderate violation in the ${theme} theme`, async () => {
      const base = session.ui.srv.url;
      const ctx = await newContext(session.browser, { dark });
      const page = await ctx.newPage();
      const problems: string[] = [];
      const check = async (what: string) => {
        // the page settles (results, fields, histogram) before it is judged
        await page.waitForLoadState('networkidle');
        // a panel still loading is drawn faded (opacity 0.6), which axe rightly reads as low contrast
        await page.waitForFunction(
          () =>
            document.querySelector('.loading') === null &&
            [...document.querySelectorAll('.sidebar, .histogram, .results')].every(
              (e) => getComputedStyle(e).opacity === '1',
            ),
        );
        for (const v of await violations(page)) problems.push(`${what}: ${v}`);
      };
      const closeDialog = async () => {
        await page.keyboard.press('Escape');
        await page.locator('dialog').waitFor({ state: 'detached' });
      };
      await page.goto(`${base}/ui/login`);
      await check('login');
      await signIn(page, base, 'admin', TEST_ADMIN_PASSWORD);
      await page.goto(`${base}/ui/search?q=&from=`);
      await page.locator('.event-line').first().waitFor();
      await check('search');
      await page.locator('.event-line').first().click();
      await check('search, an event open');
      await page.click('button:has-text("Events around this one")');
      await page.locator('dialog[open] [data-testid=context]').waitFor();
      await check('the context dialog');
      await closeDialog();
      await page.click('[data-testid=time-range]');
      await page.locator('.time-panel').waitFor();
      await check('the time picker');
      await page.keyboard.press('Escape');
      await page.locator('.event-line').first().focus();
      await page.keyboard.press('?');
      await page.locator('dialog[open] [data-testid=shortcuts]').waitFor();
      await check('the shortcut sheet');
      await closeDialog();
      await page.click('[data-testid=save-monitor]');
      const editor = page.locator('dialog[open]');
      await editor.waitFor();
      await check('the monitor editor, from a search');
      await editor.getByLabel('Name', { exact: true }).fill(`a11y ${theme}`);
      // a loopback webhook: the server refuses it, naming the field
      await editor.getByLabel('Webhook').fill('http://127.0.0.1:9/');
      await page.click('.modal-foot button:has-text("Create monitor")');
      await editor.locator('.field-error').waitFor();
      await check('the monitor editor, an error at its field');
      await editor.getByLabel('Webhook').fill('');
      await page.click('.modal-foot button:has-text("Create monitor")');
      await editor.locator('[data-testid=no-destination][role=alert]').waitFor();
      await check('the monitor editor, no destination');
      await closeDialog();
      await page.click('[data-testid=save-search]');
      await page.locator('dialog[open]').waitFor();
      await check('the save search dialog');
      await page.keyboard.press('Escape');
      for (const p of [
        'admin/users',
        'admin/api-keys',
        'admin/ingest-tokens',
        'admin/envs',
        'admin/lookups',
        'admin/general',
        'monitors',
        'saved',
      ]) {
        await page.goto(`${base}/ui/${p}`);
        await check(p);
      }
      // the saved searches list with rows: one the page saved above, shared
      await page.goto(`${base}/ui/search?q=level%3Derror&env=default&index=app`);
      await page.click('[data-testid=save-search]');
      await page.getByLabel('Name', { exact: true }).fill(`Errors (${theme})`);
      await page.getByLabel(/Share with everyone/).check();
      await page.locator('dialog[open]').getByRole('button', { name: 'Save search' }).click();
      await page.waitForURL((u) => u.searchParams.has('saved'));
      await page.goto(`${base}/ui/saved`);
      await page.locator('[data-testid=saved-searches] tr[data-saved]').first().waitFor();
      await check('saved searches, a list');
      await page.locator('[data-testid=saved-searches] tr[data-saved] button:has-text("Rename")').first().click();
      await page.locator('dialog[open]').waitFor();
      await check('the rename dialog');
      await closeDialog();
      await page
        .locator('[data-testid=saved-searches] tr[data-saved] button:has-text("Create monitor")')
        .first()
        .click();
      await page.locator('dialog[open] [data-testid=query-editor]').waitFor();
      await check('the monitor editor, from a saved search');
      await closeDialog();
      // the dashboards list: the first start's dashboard over _svclogs is a row
      await page.goto(`${base}/ui/dashboards`);
      await page.locator('[data-testid=dashboards] tr[data-dashboard]').first().waitFor();
      await check('dashboards, a list');
      await page.click('button:has-text("Import")');
      await page.locator('dialog[open] textarea').fill('{"format": 1, "title": "x", "panels": [{"type": "gauge"}]}');
      await page.locator('dialog[open] button[type=submit]').click();
      await page.locator('dialog[open] [data-testid=import-place]').waitFor();
      await check('the import dialog, an error at its place');
      await closeDialog();
      await page.goto(`${base}/ui/monitors`);
      await page.click('button:has-text("New monitor")');
      await page.locator('dialog[open]').waitFor();
      await check('the monitor editor');
      await closeDialog();
      // the dashboard the first start ships (panels of several kinds, a variable), and its panel editor
      const listed = (await call(session.ui.srv, 'GET', '/api/dashboards', { token: session.ui.admin })) as {
        dashboards: { id: string }[];
      };
      await page.goto(`${base}/ui/dashboards/${listed.dashboards[0].id}`);
      await page.locator('[data-testid=dash-panel]').first().waitFor();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=dash-panel][data-status=loading]') === null,
      );
      await check('a dashboard');
      await page.click('[data-testid=edit-dashboard]');
      await check('a dashboard, editing');
      await page.locator('[data-testid=dash-panel] button[aria-label^="Edit panel"]').first().click();
      await page.locator('dialog[open] [data-testid=query-editor]').waitFor();
      await check('the panel editor');
      await closeDialog();
      await page.click('[data-testid=add-panel]');
      await page.locator('dialog[open]').getByLabel('Visualization').selectOption('single');
      await page.locator('dialog[open] button:has-text("Add threshold")').click();
      await check('the panel editor, a single value with a threshold');
      await closeDialog();
      await page.goto(`${base}/ui/admin/api-keys`);
      await page.click('button:has-text("Create key")');
      await page.locator('dialog[open] form').waitFor();
      await check('the create-key dialog');
      await page.locator('dialog[open] input').first().fill(`axe-${theme}`);
      await page.locator('dialog[open] button[type=submit]').click();
      await page.locator('dialog[open] [data-testid=secret]').waitFor();
      await check('the one-time key dialog');
      await closeDialog();
      await page.click(`tr[data-key="axe-${theme}"] button[aria-label^="Delete"]`);
      await page.locator('dialog[open] .confirm-message').waitFor();
      await check('the delete confirmation');
      await closeDialog();
      await ctx.close();
      assert.deepEqual(problems, []);
    });
  }
});
