import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { DashboardSummary, DashboardView } from '../../src/dashboards/types.js';
import { call } from '../helpers/auth.js';
import { browserSkipReason, recordToasts, sawToast, shootBothThemes, waitFor } from './browser.js';
import { realDataAvailable, REAL_DATA } from './data.js';
import { startUiSession, type UiSession } from './fixture.js';

const skip = browserSkipReason() || (realDataAvailable() ? false : `skipped: no real data sets at ${REAL_DATA}`);
if (skip) console.log(`# web UI dashboards list tests ${skip}`);

/** A dashboard over the real Apache access log (index apache) and the generated app events: 4 panels, a variable. */
const WEB = {
  title: 'Web traffic',
  description: 'Requests of the Apache front end and errors of the app behind it, by host and status.',
  time: { from: '-30d', to: 'now' },
  refresh: '1m',
  variables: [
    { name: 'level', label: 'Level', kind: 'list', values: ['error', 'warn', 'info'], default: 'error' },
    { name: 'host', label: 'Host', kind: 'query', query: '* | stats count by host', env: 'default', index: 'app' },
  ],
  panels: [
    {
      id: 'by-host',
      title: 'Events by host',
      type: 'timeseries',
      options: { style: 'stacked-bar' },
      source: { query: 'level=$level$ | timechart count by host', env: 'default', index: 'app' },
      grid: { x: 0, y: 0, w: 16, h: 6 },
    },
    {
      id: 'requests',
      title: 'Apache requests',
      type: 'single',
      options: { trend: true, thresholds: [{ value: 100000, color: 'red' }] },
      source: { query: '* | stats count', env: 'default', index: 'apache' },
      grid: { x: 16, y: 0, w: 8, h: 6 },
    },
    {
      id: 'status',
      title: 'Status codes',
      type: 'pie',
      source: { query: '* | stats count by status', env: 'default', index: 'app' },
      grid: { x: 0, y: 6, w: 8, h: 6 },
    },
    {
      id: 'latest',
      title: 'Latest errors',
      type: 'events',
      source: { query: 'level=error host=$host$', env: 'default', index: 'app' },
      grid: { x: 8, y: 6, w: 16, h: 6 },
    },
  ],
};

/**
 * The Dashboards list in Chromium against a real svc process with the real Apache log: filter,
 * new, duplicate, export (the downloaded file), delete, import of that file (the same dashboard
 * again) and a bad import (the error names its place, nothing saved); Admin → General's home
 * dashboard and `/ui/` opening it. Each step checked against what the API then holds.
 */
describe('Dashboards list in Chromium', { skip }, () => {
  let s: UiSession;
  let base: string;
  let page: Page;
  const api = (method: string, path: string, body?: unknown, expect?: number) =>
    call(s.ui.srv, method, path, { token: s.ui.admin, body, expect });
  const list = async () => ((await api('GET', '/api/dashboards')) as { dashboards: DashboardSummary[] }).dashboards;
  const dialog = () => page.locator('dialog[open]');
  const row = (title: string) => page.locator(`[data-testid=dashboards] tr[data-dashboard="${title}"]`);
  let web: DashboardView;
  let file = '';

  before(async () => {
    s = await startUiSession();
    base = s.ui.srv.url;
    page = s.page;
    web = (await api('POST', '/api/dashboards', { ...WEB, shared: true }, 201)) as DashboardView;
    await api(
      'POST',
      '/api/dashboards',
      {
        title: 'SSH sign-ins',
        description: 'Failed and accepted logins of sshd.',
        panels: [
          {
            title: 'Failed logins',
            type: 'bar',
            source: { query: '"Failed password" | stats count by host', env: 'default', index: 'openssh' },
            grid: { x: 0, y: 0, w: 12, h: 6 },
          },
        ],
      },
      201,
    );
    // the first start's dashboard as the home: the list marks it
    const svc = (await list()).find((d) => d.title.startsWith('svc:'))!;
    await api('PATCH', '/api/admin/settings', { homeDashboard: svc.id });
  });
  after(async () => {
    assert.deepEqual(s?.errors ?? [], []);
    await s?.close();
  });

  it('lists the dashboards with owner, sharing and update time, filtered by title or owner', async () => {
    await page.goto(`${base}/ui/dashboards`);
    await row('Web traffic').waitFor();
    assert.equal(await page.locator('nav[aria-label=Main] a.active').textContent(), 'Dashboards');
    const titles = () =>
      page
        .locator('[data-testid=dashboards] tbody tr[data-dashboard]')
        .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.dashboard));
    assert.deepEqual(
      await titles(),
      (await list()).map((d) => d.title),
    );
    assert.match((await row('Web traffic').textContent())!, /4 panels.*You.*Shared/);
    assert.equal(await page.locator('[data-testid=dashboards] .badge-home').count(), 1);
    assert.match((await row('svc: ingest, errors, sign-in, MCP').textContent())!, /Home/);
    assert.equal(await page.getByRole('switch', { name: 'Share SSH sign-ins', exact: true }).isChecked(), false);
    await shootBothThemes(page, 'dashboards-list');
    await page.getByLabel('Filter by title or owner').fill('ssh');
    await waitFor('only the SSH one', async () => JSON.stringify(await titles()) === '["SSH sign-ins"]');
    await page.getByLabel('Filter by title or owner').fill('admin');
    await waitFor('every one: all are the admin’s', async () => (await titles()).length === (await list()).length);
    await page.getByLabel('Filter by title or owner').fill('');
  });

  it('exports a dashboard as the JSON file of GET /export', async () => {
    await recordToasts(page);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Web traffic', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'web-traffic.dashboard.json');
    file = readFileSync(await download.path(), 'utf8');
    assert.deepEqual(JSON.parse(file), await api('GET', `/api/dashboards/${web.id}/export`));
  });

  it('deletes it after asking, then imports the file: the same dashboard again', async () => {
    await page.getByRole('button', { name: 'Delete Web traffic', exact: true }).click();
    assert.match((await dialog().textContent())!, /Delete Web traffic\?.*everyone it is shared with/);
    await dialog().getByRole('button', { name: 'Delete' }).click();
    await row('Web traffic').waitFor({ state: 'detached' });
    await api('GET', `/api/dashboards/${web.id}`, undefined, 404);

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog().waitFor();
    await dialog()
      .locator('input[type=file]')
      .setInputFiles({
        name: 'web-traffic.dashboard.json',
        mimeType: 'application/json',
        buffer: Buffer.from(file),
      });
    await waitFor(
      'the file read into the text',
      async () => (await dialog().locator('textarea').inputValue()) === file,
    );
    await dialog().getByRole('button', { name: 'Import' }).click();
    await dialog().waitFor({ state: 'detached' });
    await sawToast(page, 'Imported “Web traffic”');
    await row('Web traffic').waitFor();
    const imported = (await list()).find((d) => d.title === 'Web traffic')!;
    assert.notEqual(imported.id, web.id);
    assert.equal(imported.shared, false, 'an import is private to the importer');
    assert.deepEqual(await api('GET', `/api/dashboards/${imported.id}/export`), JSON.parse(file));
  });

  describe('a bad import shows the error at its place and saves nothing', () => {
    const cases: [string, (f: Record<string, unknown>) => unknown, RegExp, string][] = [
      [
        'a wrong field',
        (f) => ({ ...f, panels: (f.panels as object[]).map((p, i) => (i === 1 ? { ...p, colour: 'red' } : p)) }),
        /panels\[1\]/,
        'panels[1]',
      ],
      [
        'an unknown panel type',
        (f) => ({ ...f, panels: (f.panels as object[]).map((p, i) => (i === 2 ? { ...p, type: 'gauge' } : p)) }),
        /panels\[2\]\.type: .*unknown panel type/,
        'panels[2].type',
      ],
    ];
    for (const [what, change, message, place] of cases) {
      it(what, async () => {
        const before = await list();
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await dialog().waitFor();
        await dialog()
          .locator('textarea')
          .fill(JSON.stringify(change(JSON.parse(file) as Record<string, unknown>), null, 2));
        await dialog().getByRole('button', { name: 'Import' }).click();
        const alert = dialog().getByRole('alert');
        await alert.waitFor();
        assert.match((await alert.textContent())!, message);
        assert.match(
          (await dialog().locator('[data-testid=import-place]').textContent())!,
          new RegExp(`^At ${place.replace(/[[\].]/g, '\\$&')}`),
        );
        if (what === 'an unknown panel type') await shootBothThemes(page, 'dashboards-import-error', dialog());
        await dialog().getByRole('button', { name: 'Cancel' }).click();
        await dialog().waitFor({ state: 'detached' });
        assert.deepEqual(await list(), before, 'nothing saved');
      });
    }
  });

  it('duplicates a dashboard into a private copy, and makes a new one, opening its page', async () => {
    await page.getByRole('button', { name: 'Duplicate SSH sign-ins', exact: true }).click();
    await row('SSH sign-ins (copy)').waitFor();
    const all = await list();
    const src = all.find((d) => d.title === 'SSH sign-ins')!;
    const copy = all.find((d) => d.title === 'SSH sign-ins (copy)')!;
    const { title: _t, ...srcFile } = (await api('GET', `/api/dashboards/${src.id}/export`)) as { title: string };
    const { title: _c, ...copyFile } = (await api('GET', `/api/dashboards/${copy.id}/export`)) as { title: string };
    assert.deepEqual(copyFile, srcFile);

    await page.getByRole('button', { name: 'New dashboard', exact: true }).first().click();
    await dialog().getByLabel('Title').fill('On call');
    await dialog().getByRole('button', { name: 'Create' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/ui/dashboards/'));
    const made = (await list()).find((d) => d.title === 'On call')!;
    assert.equal(new URL(page.url()).pathname, `/ui/dashboards/${made.id}`);
    assert.equal(made.panels, 0);
  });

  it('opens the home dashboard of Admin → General at /ui/, and the search page without one', async () => {
    const shared = (await list()).find((d) => d.title === 'SSH sign-ins')!;
    await api('PATCH', `/api/dashboards/${shared.id}`, { version: shared.version, shared: true });
    await page.goto(`${base}/ui/admin/general`);
    const select = page.getByLabel('Home dashboard', { exact: true });
    await select.waitFor();
    await waitFor('the shared dashboards offered', async () => (await select.locator('option').count()) >= 3);
    // only shared ones are offered: the private import is not
    assert.equal(await select.locator('option', { hasText: 'Web traffic' }).count(), 0);
    await select.selectOption({ label: 'SSH sign-ins' });
    const card = page.locator('form', { has: select });
    await card.getByRole('button', { name: 'Save' }).click();
    await waitFor('the setting stored', async () => {
      const st = (await api('GET', '/api/admin/settings')) as { settings: { homeDashboard?: string } };
      return st.settings.homeDashboard === shared.id;
    });
    await page.goto(`${base}/ui/`);
    await page.waitForURL((u) => u.pathname === `/ui/dashboards/${shared.id}`);
    await page.goto(`${base}/ui/dashboards`);
    await row('SSH sign-ins').locator('.badge-home').waitFor();

    await api('PATCH', '/api/admin/settings', { homeDashboard: null });
    await page.goto(`${base}/ui/`);
    await page.waitForURL((u) => u.pathname === '/ui/search');
  });
});
