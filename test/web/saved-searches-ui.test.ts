import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { MonitorView } from '../../src/monitors/types.js';
import type { SavedSearchView } from '../../src/saved-searches/types.js';
import { call, createUser } from '../helpers/auth.js';
import {
  browserSkipReason,
  newContext,
  shootBothThemes,
  recordToasts,
  sawToast,
  signIn,
  waitFor,
  watchErrors,
} from './browser.js';
import { startUiSession, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI saved searches tests ${skip}`);

const QUERY = 'level=error | stats count by host';

/**
 * The saved searches UI in Chromium against a real svc process: the search page's Save (new, a
 * change with the version it loaded, the 409 when someone else changed it first, save as new), the
 * Saved searches page (open, rename, duplicate, share, delete, create a monitor), and what a second
 * user sees. Every step is checked against what the API then holds.
 */
describe('Saved searches in Chromium', { skip }, () => {
  let s: UiSession;
  let base: string;
  let page: Page;
  const api = (method: string, path: string, body?: unknown) =>
    call(s.ui.srv, method, path, { token: s.ui.admin, body });
  const record = async (id: string) => (await api('GET', `/api/saved-searches/${id}`)) as SavedSearchView;
  const dialog = () => page.locator('dialog[open]');
  const savedId = () => new URL(page.url()).searchParams.get('saved') ?? '';
  let id = '';

  before(async () => {
    s = await startUiSession();
    base = s.ui.srv.url;
    page = s.page;
    await createUser(s.ui.srv, { username: 'bob', password: 'bob-password-123', role: 'user' });
  });
  after(async () => {
    assert.deepEqual(s?.errors ?? [], []);
    await s?.close();
  });

  it('explains how to save a search while there is none', async () => {
    await page.goto(`${base}/ui/saved`);
    const empty = page.locator('[data-testid=saved-searches] .empty-state');
    await empty.waitFor();
    assert.match((await empty.textContent())!, /No saved searches yet.*choose Save beside the Search button/);
    assert.equal(await page.locator('nav[aria-label=Main] a.active').textContent(), 'Saved searches');
  });

  it('saves what the search page shows: the query, env, index, a relative range and the chart view', async () => {
    await page.goto(`${base}/ui/search?q=${encodeURIComponent(QUERY)}&env=default&index=app&from=-6h&view=chart`);
    await page.locator('[data-testid=result-chart] canvas').first().waitFor();
    await page.click('[data-testid=save-search]');
    await dialog().waitFor();
    // the keyboard lands in the name, prefilled from the query
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), QUERY);
    assert.match((await page.locator('[data-testid=save-summary]').textContent())!, /default \/ app.*Column chart/);
    await dialog().getByLabel('Name', { exact: true }).fill('Errors by host');
    await dialog().getByLabel('Description (optional)').fill('error events of the app, per host');
    await dialog()
      .getByLabel(/Share with everyone/)
      .check();
    await shootBothThemes(page, 'save-search', dialog());
    await dialog().getByRole('button', { name: 'Save search' }).click();
    await waitFor('the saved id in the URL', () => savedId());
    id = savedId();
    await dialog().waitFor({ state: 'detached' });
    // the focus is back on the button that opened the dialog
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.testid), 'save-search');

    const r = await record(id);
    assert.equal(r.name, 'Errors by host');
    assert.equal(r.description, 'error events of the app, per host');
    assert.equal(r.query, QUERY);
    assert.equal(r.env, 'default');
    assert.equal(r.index, 'app');
    assert.deepEqual(r.range, { from: '-6h', to: 'now' });
    assert.deepEqual(r.view, { type: 'chart', chart: 'column' });
    assert.equal(r.shared, true);
    assert.equal(r.version, 1);
  });

  it('opens it from the list with its query in the editor, its range and view in the URL', async () => {
    // a second one, from the real OpenSSH log when it is there, so the list has an order to keep
    await api('POST', '/api/saved-searches', {
      name: 'SSH failed logins',
      description: 'sshd authentication failures, newest first',
      query: s.ui.real ? '"Failed password"' : 'level=warn',
      env: 'default',
      index: s.ui.real ? 'openssh' : 'app',
      range: { from: '-30d', to: 'now' },
    });
    await page.goto(`${base}/ui/saved`);
    await page.locator('tr[data-saved="Errors by host"]').waitFor();
    const listed = (await api('GET', '/api/saved-searches')) as { savedSearches: SavedSearchView[] };
    assert.deepEqual(
      await page
        .locator('[data-testid=saved-searches] tbody tr')
        .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.saved)),
      listed.savedSearches.map((x) => x.name),
      'the list keeps the API order: the most recently used first',
    );
    await page.getByRole('link', { name: 'Open Errors by host', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/ui/search');
    const u = new URL(page.url()).searchParams;
    assert.equal(u.get('q'), QUERY);
    assert.equal(u.get('env'), 'default');
    assert.equal(u.get('index'), 'app');
    assert.equal(u.get('from'), '-6h');
    assert.equal(u.get('to'), null);
    assert.equal(u.get('view'), 'chart');
    assert.equal(u.get('saved'), id);
    assert.equal(await page.locator('.cm-content').textContent(), QUERY);
    await page.locator('[data-testid=result-chart] canvas').first().waitFor();
  });

  it('counts a run of the opened search as its use, not the opening', async () => {
    const before = await record(id);
    // opened above, its search shown: reading it and the search the page makes on opening are no run
    assert.equal(before.lastRunAt, null);
    await page.click('[data-testid=run]');
    const ran = await waitFor('the run recorded', async () => (await record(id)).lastRunAt);
    assert.ok(ran >= before.lastUsedAt);
    assert.equal((await record(id)).version, before.version, 'a run is not an edit');
  });

  it('saves a change with the version it loaded, and offers reload or save as new after a 409', async () => {
    await page.getByRole('tab', { name: 'Table' }).click();
    await page.waitForURL((u) => u.searchParams.get('view') === 'table');
    await page.click('[data-testid=save-search]');
    await dialog().waitFor();
    assert.equal(await dialog().getByLabel('Name', { exact: true }).inputValue(), 'Errors by host');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
    await waitFor('version 2', async () => (await record(id)).version === 2);
    assert.deepEqual((await record(id)).view, { type: 'table' });

    // someone else changes it meanwhile: this page still holds version 2
    await api('PATCH', `/api/saved-searches/${id}`, {
      version: 2,
      description: 'app errors per host: look here after each deploy',
    });
    await page.click('[data-testid=save-search]');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = page.locator('[data-testid=save-conflict]');
    await conflict.waitFor();
    assert.match((await conflict.textContent())!, /Someone else changed Errors by host.*version 3/);
    assert.ok(await dialog().getByRole('button', { name: 'Save', exact: true }).isDisabled());
    assert.equal(
      (await record(id)).description,
      'app errors per host: look here after each deploy',
      'the 409 changed nothing',
    );

    // save as new: a second saved search, and the page now follows it
    await dialog().getByLabel('Name', { exact: true }).fill('Errors by host, table');
    await dialog().getByRole('button', { name: 'Save as new' }).click();
    await dialog().waitFor({ state: 'detached' });
    await waitFor('the new id in the URL', () => savedId() !== id);
    const copy = await record(savedId());
    assert.equal(copy.name, 'Errors by host, table');
    assert.deepEqual(copy.view, { type: 'table' });
    assert.equal(copy.version, 1);

    // reload theirs: back on the first one, a 409, and the page takes their version
    await page.goto(`${base}/ui/search?${new URLSearchParams({ q: QUERY, env: 'default', index: 'app', saved: id })}`);
    await page.locator('[data-testid=save-search]').waitFor();
    await api('PATCH', `/api/saved-searches/${id}`, { version: 3, range: { from: '-4h', to: 'now' } });
    await page.click('[data-testid=save-search]');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    await conflict.waitFor();
    await page.getByRole('button', { name: 'Reload theirs' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.waitForURL((u) => u.searchParams.get('from') === '-4h');
    assert.equal(new URL(page.url()).searchParams.get('saved'), id);
    // and a save now goes through with version 4
    await page.click('[data-testid=save-search]');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
    await waitFor('version 5', async () => (await record(id)).version === 5);
    assert.deepEqual((await record(id)).range, { from: '-4h', to: 'now' });
  });

  it('renames, duplicates, shares and deletes from the list', async () => {
    await page.goto(`${base}/ui/saved`);
    const row = (name: string) => page.locator(`tr[data-saved="${name}"]`);
    await row('Errors by host').waitFor();

    await page.getByRole('button', { name: 'Rename Errors by host', exact: true }).click();
    await dialog().waitFor();
    await dialog().getByLabel('Name', { exact: true }).fill('App errors by host');
    await dialog().getByRole('button', { name: 'Rename' }).click();
    await row('App errors by host').waitFor();
    assert.equal((await record(id)).name, 'App errors by host');

    await page.getByRole('button', { name: 'Duplicate App errors by host', exact: true }).click();
    await row('App errors by host (copy)').waitFor();
    const all = (await api('GET', '/api/saved-searches')) as { savedSearches: SavedSearchView[] };
    const dup = all.savedSearches.find((x) => x.name === 'App errors by host (copy)')!;
    assert.equal(dup.query, QUERY);
    assert.equal(dup.shared, false);

    const sw = page.getByRole('switch', { name: 'Share SSH failed logins', exact: true });
    assert.equal(await sw.isChecked(), false);
    await sw.click();
    await waitFor('the SSH search shared', async () =>
      ((await api('GET', '/api/saved-searches')) as { savedSearches: SavedSearchView[] }).savedSearches.some(
        (x) => x.name === 'SSH failed logins' && x.shared,
      ),
    );
    await sw.click();
    await waitFor('the SSH search private again', async () =>
      ((await api('GET', '/api/saved-searches')) as { savedSearches: SavedSearchView[] }).savedSearches.some(
        (x) => x.name === 'SSH failed logins' && !x.shared,
      ),
    );

    await page.getByRole('button', { name: 'Delete App errors by host (copy)', exact: true }).click();
    await dialog().getByRole('button', { name: 'Delete' }).click();
    await row('App errors by host (copy)').waitFor({ state: 'detached' });
    await call(s.ui.srv, 'GET', `/api/saved-searches/${dup.id}`, { token: s.ui.admin, expect: 404 });

    await page.getByLabel('Filter by name or owner').fill('ssh');
    await waitFor(
      'the filter',
      async () => (await page.locator('[data-testid=saved-searches] tbody tr').count()) === 1,
    );
    assert.equal(await row('SSH failed logins').count(), 1);
    await page.getByLabel('Filter by name or owner').fill('');
    await page.locator('tr[data-saved="App errors by host"]').waitFor();
  });

  it('shows another user the shared search read-only, not the private one, and saves them their own copy', async () => {
    // one more shared search over the real Apache access log, when it is there
    const apache = s.ui.real ? 'Apache 5xx by client' : '';
    if (apache)
      await api('POST', '/api/saved-searches', {
        name: apache,
        description: 'server errors in the access log, the busiest clients first',
        query: 'status>=500 | stats count by clientip | sort -count',
        env: 'default',
        index: 'apache',
        range: { from: '-1y', to: 'now' },
        view: { type: 'chart', chart: 'column' },
        shared: true,
      });
    const ctx: BrowserContext = await newContext(s.browser);
    const bob = await ctx.newPage();
    const errors = watchErrors(bob);
    try {
      await signIn(bob, base, 'bob', 'bob-password-123', '/ui/saved');
      const shared = bob.locator('tr[data-saved="App errors by host"]');
      await shared.waitFor();
      assert.equal(await shared.getAttribute('data-editable'), 'false');
      assert.match((await shared.textContent())!, /admin.*Read-only/);
      assert.equal(await shared.getByRole('button', { name: /Rename|Delete/ }).count(), 0);
      assert.equal(await shared.getByRole('switch').count(), 0);
      assert.equal(await bob.locator('tr[data-saved="SSH failed logins"]').count(), 0, 'a private one stays hidden');

      await shared.getByRole('link', { name: 'Open App errors by host', exact: true }).click();
      await bob.waitForURL((u) => u.pathname === '/ui/search' && u.searchParams.get('saved') === id);
      await bob.locator('[data-testid=result-count]').waitFor();
      await bob.click('[data-testid=save-search]');
      const d = bob.locator('dialog[open]');
      await d.waitFor();
      assert.equal(await d.getByRole('heading').textContent(), 'Save as a new search');
      assert.equal(await d.getByRole('button', { name: 'Save as new' }).count(), 0);
      await d.getByRole('button', { name: 'Save search' }).click();
      await d.waitFor({ state: 'detached' });
      await bob.waitForURL((u) => (u.searchParams.get('saved') ?? id) !== id);
      const mine = await record(new URL(bob.url()).searchParams.get('saved')!);
      assert.equal(mine.owner.name, 'bob');
      assert.equal(mine.name, 'App errors by host');
      assert.equal(mine.shared, false);
      assert.equal((await record(id)).owner.name, 'admin');

      // bob's list: his own copy to change, the shared ones to open and copy
      await bob.goto(`${base}/ui/saved`);
      await bob.locator('tr[data-saved="App errors by host"][data-editable=true]').waitFor();
      await bob.locator('tr[data-saved="App errors by host"][data-editable=false]').waitFor();
      if (apache) await bob.locator(`tr[data-saved="${apache}"]`).waitFor();
      await shootBothThemes(bob, 'saved-searches');
      assert.deepEqual(errors, []);
    } finally {
      await ctx.close();
    }
  });
  it('creates a monitor from a row: the saved query, env, index, and its relative range as the window', async () => {
    const query = 'level=error | stats count by host';
    await api('POST', '/api/saved-searches', {
      name: 'App errors to watch',
      query,
      env: 'default',
      index: 'app',
      range: { from: '-2h', to: 'now' },
      view: { type: 'table' },
    });
    await api('POST', '/api/saved-searches', {
      name: 'Errors everywhere',
      query: 'level=error',
      env: '*',
      range: { from: '-30m', to: 'now' },
      view: { type: 'events' },
    });
    await page.goto(`${base}/ui/saved`);

    // a search over all environments: the monitor watches one, and the editor says which
    await page.getByRole('button', { name: 'Create monitor from Errors everywhere', exact: true }).click();
    await dialog().waitFor();
    assert.equal(await dialog().getByLabel('Environment', { exact: true }).inputValue(), 'default');
    assert.match(
      (await dialog().locator('[data-testid=monitor-env-note]').textContent())!,
      /all environments.*default/,
    );
    assert.equal(await dialog().getByLabel('Over the last').inputValue(), '30m');
    await shootBothThemes(page, 'monitor-from-saved', dialog());
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Create monitor from App errors to watch', exact: true }).click();
    await dialog().waitFor();
    assert.equal(await dialog().locator('h2').textContent(), 'Save search as monitor');
    assert.equal(await dialog().locator('[data-testid=query-editor]').textContent(), query);
    assert.equal(await dialog().locator('[data-testid=monitor-env-note]').count(), 0);
    await dialog().getByLabel('Name', { exact: true }).fill('app errors from saved');
    await dialog().getByRole('button', { name: 'Create monitor' }).click();
    await dialog().locator('[data-testid=no-destination][role=alert]').waitFor();
    await recordToasts(page);
    await dialog().getByRole('button', { name: 'Create without destination' }).click();
    await dialog().waitFor({ state: 'detached' });
    await sawToast(page, 'Monitor "app errors from saved" created');
    const { monitors } = (await api('GET', '/api/monitors')) as { monitors: MonitorView[] };
    const m = monitors.find((x) => x.name === 'app errors from saved');
    assert.ok(m, monitors.map((x) => x.name).join(', '));
    assert.deepEqual(
      { query: m.query, env: m.env, index: m.index, window: m.window, destinations: m.destinations },
      { query, env: 'default', index: 'app', window: '2h', destinations: [] },
    );
    assert.equal(new URL(page.url()).pathname, '/ui/saved', 'the list stays where it was');
  });
});
