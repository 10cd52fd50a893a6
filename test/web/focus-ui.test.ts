import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { call, createApiKeyRecord } from '../helpers/auth.js';
import { browserSkipReason, shownCount, waitFor } from './browser.js';
import { startUiSession, type UiSession } from './fixture.js';

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const skip = browserSkipReason();
if (skip) console.log(`# web UI focus tests ${skip}`);

/** Whether `el` has the focus (document.activeElement), not the body or the page top. */
const focused = (el: Locator) => el.evaluate((e) => e === document.activeElement);
/** What has the focus, for a failure message. */
const activeText = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a
      ? `<${a.tagName.toLowerCase()}> ${(a.getAttribute('aria-label') ?? a.textContent ?? '').slice(0, 60)}`
      : '';
  });

async function assertFocused(page: Page, el: Locator, what: string): Promise<void> {
  await waitFor(`${what} focused (now: ${await activeText(page)})`, () => focused(el), 5000);
}

describe('focus, the keyboard and phones in Chromium', { skip }, () => {
  let session: UiSession;
  let page: Page;
  const base = () => session.ui.srv.url;
  const openSearch = async (params: Record<string, string>) => {
    await page.goto(`${base()}/ui/search?${new URLSearchParams(params)}`);
    return shownCount(page);
  };

  before(async () => {
    session = await startUiSession();
    page = session.page;
    mkdirSync(SHOTS, { recursive: true });
    // rows for the phone cards: keys with long names and purposes, and a monitor
    for (const [name, purpose] of [
      ['grafana-dashboards', 'Read-only key for the operations dashboards'],
      ['claude-desktop', 'MCP for the on-call assistant'],
    ])
      await createApiKeyRecord(session.ui.srv, {
        name,
        purpose,
        scopes: name.startsWith('claude') ? ['mcp'] : ['standard'],
      });
    await call(session.ui.srv, 'POST', '/api/monitors', {
      token: session.ui.admin,
      body: {
        name: 'errors by host',
        query: 'level=error | stats count by host',
        env: 'default',
        every: '5m',
        window: '1h',
        condition: { threshold: 'count > 20' },
        destinations: [],
      },
      expect: 201,
    });
  });

  after(async () => {
    await session?.close();
  });

  it('returns the focus to the event row after Esc closes its detail, and to the button that opened the context dialog', async () => {
    await openSearch({ q: '', index: 'app', from: '-24h' });
    const row = page.locator('.event-line').nth(1);
    await row.focus();
    await page.keyboard.press('Enter');
    assert.equal(await row.getAttribute('aria-expanded'), 'true');
    const around = page.locator('.event-detail button', { hasText: 'Events around this one' });
    await around.focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog').waitFor({ state: 'detached' });
    await assertFocused(page, around, 'the "Events around this one" button');
    // Esc inside the open detail closes it and goes back to its row
    await page.keyboard.press('Escape');
    await waitFor('the detail closed', async () => (await row.getAttribute('aria-expanded')) === 'false');
    await assertFocused(page, row, 'the event row');
  });

  it('returns the focus to what was focused when the shortcut sheet opened', async () => {
    await openSearch({ q: '', index: 'app', from: '-24h' });
    const row = page.locator('.event-line').nth(2);
    await row.focus();
    await page.keyboard.press('?');
    await page.locator('[data-testid=shortcuts]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=shortcuts]').waitFor({ state: 'detached' });
    await assertFocused(page, row, 'the event row');
  });

  it('picks a time preset with the keyboard alone: arrows, Home/End and Enter, and Esc goes back to the range button', async () => {
    await openSearch({ q: '', index: 'app', from: '-24h' });
    const button = page.locator('[data-testid=time-range]');
    const option = (label: string) => page.locator('[role=option]', { hasText: label });
    await button.focus();
    await page.keyboard.press('Enter');
    // the picker opens on the range in force
    await assertFocused(page, option('Last 24 hours'), 'the current preset');
    assert.equal(await option('Last 24 hours').getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowDown');
    await assertFocused(page, option('Last 7 days'), 'the next preset');
    await page.keyboard.press('End');
    await assertFocused(page, option('All time'), 'the last preset');
    await page.keyboard.press('Home');
    await assertFocused(page, option('Last 15 minutes'), 'the first preset');
    await page.keyboard.press('ArrowUp');
    await assertFocused(page, option('Last 15 minutes'), 'the first preset still');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await assertFocused(page, option('Last 4 hours'), 'the third preset');
    // the typed inputs stay a Tab away
    await page.keyboard.press('Tab');
    await assertFocused(page, page.locator('input[aria-label="Relative start"]'), 'the relative start input');
    await page.keyboard.press('Shift+Tab');
    await assertFocused(page, option('Last 4 hours'), 'the preset Tab left');
    await page.screenshot({
      path: join(SHOTS, 'time-picker-keyboard.png'),
      clip: { x: 640, y: 0, width: 640, height: 520 },
    });
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('from') === '-4h');
    assert.equal(await page.locator('.time-panel').count(), 0);
    await assertFocused(page, button, 'the time-range button after a pick');
    assert.equal(await button.textContent(), 'Last 4 hours');
    await page.keyboard.press('Enter');
    await page.locator('.time-panel').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.time-panel').waitFor({ state: 'detached' });
    await assertFocused(page, button, 'the time-range button after Esc');
  });

  it('returns the focus to the button that opened a form dialog, the one-time key dialog and a delete confirmation', async () => {
    await page.goto(`${base()}/ui/admin/api-keys`);
    await page.locator('tr[data-key=grafana-dashboards]').waitFor();
    const create = page.locator('button', { hasText: 'Create key' });
    await create.focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog').waitFor({ state: 'detached' });
    await assertFocused(page, create, 'the create button after Esc');
    // create one: the form dialog gives way to the secret's, which gives the focus back to Create
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await page.locator('dialog input').first().fill('focus-test-key');
    await page.locator('dialog button[type=submit]').click();
    await page.locator('[data-testid=secret]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog').waitFor({ state: 'detached' });
    await assertFocused(page, create, 'the create button after the secret');
    const del = page.locator('tr[data-key=focus-test-key] button[aria-label*="Delete"]');
    await del.focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog').waitFor({ state: 'detached' });
    await assertFocused(page, del, 'the delete button');
    // confirmed, the row and its button are gone: the focus goes to the page's content, not the body
    await page.keyboard.press('Enter');
    await page.locator('dialog[open] button.btn-danger').click();
    await page.locator('tr[data-key=focus-test-key]').waitFor({ state: 'detached' });
    await assertFocused(page, page.locator('#main'), 'the main content');
  });

  it('shows the admin keys and the monitors as cards on a phone (390×844): no sideways scroll, every name in view', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [path, table, rows, shot] of [
        ['admin/api-keys', 'api-keys', 'tr[data-key]', 'phone-api-keys'],
        ['monitors', 'monitors', 'tr[data-monitor]', 'phone-monitors'],
      ]) {
        for (const dark of [false, true]) {
          await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
          await page.goto(`${base()}/ui/${path}`);
          await page.locator(rows).first().waitFor();
          await page.waitForLoadState('networkidle');
          const widths = await page.evaluate((id) => {
            const t = document.querySelector<HTMLElement>(`[data-testid="${id}"]`)!;
            const card = t.parentElement!;
            const root = document.documentElement;
            return { page: root.scrollWidth, view: root.clientWidth, table: t.scrollWidth, card: card.clientWidth };
          }, table);
          assert.ok(widths.page <= widths.view, `${path}: the page is ${widths.page} px wide in ${widths.view}`);
          assert.ok(widths.table <= widths.card, `${path}: the table is ${widths.table} px wide in ${widths.card}`);
          const names = page.locator(`${rows} td:first-child`);
          assert.ok((await names.count()) > 0);
          for (const cell of await names.all()) {
            assert.ok(await cell.isVisible());
            const box = (await cell.boundingBox())!;
            assert.ok(box.x >= 0 && box.x + box.width <= 390, `${path}: a name cell at ${box.x}+${box.width}`);
            const text = (await cell.locator('.strong').first().textContent()) ?? '';
            assert.ok(text.length > 0);
          }
          // the actions of each card are there to use
          for (const r of await page.locator(rows).all()) {
            const b = (await r.locator('.actions-col button').last().boundingBox())!;
            assert.ok(b.x >= 0 && b.x + b.width <= 390, `${path}: an action at ${b.x}+${b.width}`);
          }
          await page.screenshot({ path: join(SHOTS, `${shot}${dark ? '-dark' : ''}.png`) });
        }
      }
      // the other admin lists are the same AdminTable: none is wider than its card
      for (const [path, table] of [
        ['admin/ingest-tokens', 'ingest-tokens'],
        ['admin/users', 'users'],
        ['admin/envs', 'envs'],
        ['admin/lookups', 'lookups'],
      ]) {
        await page.goto(`${base()}/ui/${path}`);
        await page.locator(`[data-testid="${table}"] tbody tr`).first().waitFor();
        const [wide, room, pageWide] = await page
          .locator(`[data-testid="${table}"]`)
          .evaluate((t) => [t.scrollWidth, t.parentElement!.clientWidth, document.documentElement.scrollWidth]);
        assert.ok(wide <= room, `${path}: the table is ${wide} px wide in ${room}`);
        assert.ok(pageWide <= 390, `${path}: the page is ${pageWide} px wide`);
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(session.errors, []);
  });
});
