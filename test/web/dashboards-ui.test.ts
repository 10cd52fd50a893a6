import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Request } from 'playwright-core';
import type { DashboardView, PanelAnswer } from '../../src/dashboards/types.js';
import { call, createEnv, createIngestToken, createUser } from '../helpers/auth.js';
import { browserSkipReason, newContext, shootBothThemes, shownCount, signIn, waitFor, watchErrors } from './browser.js';
import { APACHE_LOG, appEvents, ingestNdjson, linesOf, type AppEvent } from './data.js';
import { startUiSession, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI dashboard tests ${skip}`);

/** The app's events are of the last six hours; the panels of the real Apache log (May 2015) reach back themselves. */
const RANGE = { from: '-7h', to: 'now' };
/** A query's own time modifier, which wins over the dashboard's range (as on the search page). */
const BACK = 'earliest=-12y';
const APP = { env: 'default', index: 'app' };
const STAGING_EVENTS = 240;

/** Per level, the app events of `host` (the test's own count, from the events it sent). */
function byLevel(events: AppEvent[], host: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of events) if (e.host === host) m.set(e.level, (m.get(e.level) ?? 0) + 1);
  return m;
}

/** Requests per client IP in the Apache log: the first word of each line. */
function apacheByClient(): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of linesOf(APACHE_LOG)) {
    const ip = l.split(' ')[0];
    m.set(ip, (m.get(ip) ?? 0) + 1);
  }
  return m;
}

/** Requests per status code in the Apache log: the number after the quoted request. */
function apacheByStatus(): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of linesOf(APACHE_LOG)) {
    const s = /" (\d{3}) /.exec(l)?.[1] ?? '';
    m.set(s, (m.get(s) ?? 0) + 1);
  }
  return m;
}

/**
 * The dashboard page in Chromium against a real svc process and real data: panels of every kind
 * whose numbers are the API's and the test's own counts, a `$host$` variable in the URL, drill-down
 * to the search page, drag and resize saved with the version, a stale version told, a restricted
 * viewer of a shared dashboard who sees only their env's numbers and the note saying so.
 */
describe('Dashboards in Chromium', { skip }, () => {
  let s: UiSession;
  let base: string;
  let page: Page;
  let staging: AppEvent[];
  let id = '';
  const api = (method: string, path: string, body?: unknown) =>
    call(s.ui.srv, method, path, { token: s.ui.admin, body });
  const dash = async () => (await api('GET', `/api/dashboards/${id}`)) as DashboardView;
  const panel = (pid: string) => page.locator(`[data-testid=dash-panel][data-panel-id="${pid}"]`);
  /** Waits for every panel to have answered (none loading), then checks that `pid` is drawn, not an error. */
  const ready = async (pid: string) => {
    await waitFor(`panel ${pid} answered`, async () =>
      (await panel(pid).count()) === 1 &&
      (await page.locator('[data-testid=dash-panel][data-status=loading]').count()) === 0
        ? true
        : null,
    );
    assert.equal(await panel(pid).getAttribute('data-status'), 'ready', `panel ${pid}`);
    return panel(pid);
  };
  /** The panel's answer from the API for `host`, as the page asks it (the dashboard's range). */
  const answer = async (pid: string, host: string) =>
    (await api('POST', `/api/dashboards/${id}/panels/${pid}/run`, { vars: { host } })) as PanelAnswer & {
      columns: string[];
      rows: unknown[][];
      events: unknown[];
    };

  before(async () => {
    s = await startUiSession();
    base = s.ui.srv.url;
    page = s.page;
    // a second env a restricted user may not read, with app events of the same hosts
    await createEnv(s.ui.srv, 'staging');
    staging = appEvents(STAGING_EVENTS, Date.now() - 1000);
    await ingestNdjson(s.ui.srv, await createIngestToken(s.ui.srv, { env: 'staging' }), 'app', staging);
    await createUser(s.ui.srv, {
      username: 'rita',
      password: 'rita-password-123',
      role: 'user',
      allow: { envs: ['default'] },
    });
    const grid = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });
    const real = s.ui.real;
    const d = (await api('POST', '/api/dashboards', {
      title: 'Web shop',
      shared: true,
      time: RANGE,
      refresh: 'off',
      variables: [
        {
          name: 'host',
          label: 'Host',
          kind: 'query',
          query: '* | stats count by host | sort host',
          ...APP,
          default: 'web-1',
        },
      ],
      panels: [
        {
          id: 'levels',
          title: 'Requests by level',
          type: 'timeseries',
          options: { style: 'stacked-bar' },
          source: { query: 'host=$host$ | timechart span=1h count by level', ...APP },
          grid: grid(0, 0, 16, 7),
        },
        {
          id: 'total',
          title: 'Requests, every env',
          type: 'single',
          options: {
            trend: true,
            thresholds: [
              { value: 1, color: 'green' },
              { value: 100000, color: 'red' },
            ],
          },
          source: { query: 'host=$host$ | stats count', env: '*', index: 'app' },
          grid: grid(16, 0, 8, 3),
        },
        {
          id: 'errors',
          title: 'Latest errors',
          type: 'events',
          source: { query: 'host=$host$ level=error', ...APP },
          grid: grid(16, 3, 8, 8),
        },
        {
          id: 'clients',
          title: 'Top clients',
          type: 'bar',
          source: real
            ? {
                query: `${BACK} | stats count by clientip | sort - count, clientip | head 8`,
                env: 'default',
                index: 'apache',
              }
            : { query: '* | stats count by host | sort - count, host', ...APP },
          grid: grid(0, 7, 9, 7),
        },
        {
          id: 'hist',
          title: 'Events over time',
          type: 'histogram',
          source: { query: 'host=$host$', ...APP },
          grid: grid(9, 7, 7, 7),
        },
      ],
    })) as DashboardView;
    id = d.id;
  });
  after(async () => {
    assert.deepEqual(s?.errors ?? [], []);
    await s?.close();
  });

  it('adds panels through the editor, showing a query error at the query field', async () => {
    await page.goto(`${base}/ui/dashboards/${id}`);
    await ready('levels');
    await page.click('[data-testid=edit-dashboard]');
    await page.click('[data-testid=add-panel]');
    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    await dialog.getByLabel('Title').fill(s.ui.real ? 'Status codes' : 'Levels');
    await dialog.getByLabel('Visualization').selectOption('pie');
    await dialog.locator('[data-testid=query-editor]').fill('* | stats count by');
    await dialog.getByLabel('Environment').selectOption('default');
    await dialog.getByLabel('Index').selectOption(s.ui.real ? 'apache' : 'app');
    await dialog.getByRole('button', { name: 'Add panel' }).click();
    // the server names the query, with the position: the message is under the query, not at the top
    const err = dialog.locator('.field-error');
    await err.waitFor();
    assert.match((await err.textContent())!, /position|expected|missing|unexpected/i);
    assert.equal(await dialog.locator('[data-testid=query-editor]').getAttribute('aria-invalid'), 'true');
    await dialog
      .locator('[data-testid=query-editor]')
      .fill(s.ui.real ? `${BACK} | stats count by status` : '* | stats count by level');
    // the completion list closed, as a person sees the form before saving
    await waitFor('the completion list', async () =>
      (await dialog.locator('.cm-tooltip-autocomplete').count()) ? true : null,
    );
    await page.keyboard.press('Escape'); // the completion list, not the dialog
    await dialog.locator('.cm-tooltip-autocomplete').waitFor({ state: 'detached' });
    await shootBothThemes(page, 'dashboard-panel-editor', dialog);
    await dialog.getByRole('button', { name: 'Add panel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.click('[data-testid=add-panel]');
    await dialog.waitFor();
    await dialog.getByLabel('Title').fill('Requests by status');
    await dialog.getByLabel('Visualization').selectOption('table');
    await dialog.locator('[data-testid=query-editor]').fill('host=$host$ | stats count by status');
    await dialog.getByLabel('Environment').selectOption('default');
    await dialog.getByLabel('Index').selectOption('app');
    await dialog.getByRole('button', { name: 'Add panel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.click('[data-testid=edit-dashboard]');

    const d = await dash();
    assert.equal(d.panels.length, 7);
    assert.deepEqual(
      d.panels.slice(5).map((p) => [p.title, p.type, p.source]),
      [
        [
          s.ui.real ? 'Status codes' : 'Levels',
          'pie',
          s.ui.real
            ? { query: `${BACK} | stats count by status`, env: 'default', index: 'apache' }
            : { query: '* | stats count by level', env: 'default', index: 'app' },
        ],
        ['Requests by status', 'table', { query: 'host=$host$ | stats count by status', env: 'default', index: 'app' }],
      ],
    );
    assert.equal(new Set(d.panels.map((p) => p.type)).size, 7, 'every kind of panel');
  });

  /** Checks every panel against the API's answer and the test's own counts for `host`. */
  const checkPanels = async (host: string) => {
    const mine = byLevel(s.ui.app, host);
    const d = await dash();
    // time series: a legend total per level, equal to the API's and to the events sent
    const levels = await ready('levels');
    const totals = await levels
      .locator('.viz-legend li')
      .evaluateAll((lis) =>
        lis.map((li) => [
          li.querySelector('.viz-legend-name')!.textContent,
          li.querySelector('.viz-legend-total')!.textContent,
        ]),
      );
    const ts = await answer('levels', host);
    const want = ts.columns.filter((c) => c !== '_time').map((c) => [c, String(mine.get(c) ?? 0)]);
    assert.deepEqual(
      totals.map(([n, v]) => [n, (v ?? '').replace(/,/g, '')]),
      want,
    );
    // single value over every env: both envs' events of the host
    const all = mine.size ? [...mine.values()].reduce((a, b) => a + b, 0) : 0;
    const stagingCount = staging.filter((e) => e.host === host).length;
    const single = (await ready('total')).locator('[data-testid=single-value]');
    assert.equal(await single.getAttribute('data-value'), String(all + stagingCount));
    assert.equal(Number((await answer('total', host)).rows[0][0]), all + stagingCount);
    await waitFor('the trend', async () =>
      (await panel('total').locator('[data-testid=trend]').textContent())?.includes('…') ? null : true,
    );
    // events: the host's errors, newest first (at most 100)
    const errors = await ready('errors');
    const wantErrors = s.ui.app.filter((e) => e.host === host && e.level === 'error').length;
    assert.equal((await answer('errors', host)).events.length, Math.min(100, wantErrors));
    await waitFor('the error rows', async () => (await errors.locator('.event-line').count()) > 0 || wantErrors === 0);
    assert.ok((await errors.locator('.event-host').allTextContents()).every((h) => h === host));
    // the bar chart and the pie: each bar and slice is the API's row, and the log's own count
    const bars = await (
      await ready('clients')
    )
      .locator('[data-testid=bar]')
      .evaluateAll((bs) => bs.map((b) => [(b as HTMLElement).dataset.label, Number((b as HTMLElement).dataset.value)]));
    const barsApi = await answer('clients', host);
    assert.deepEqual(
      bars,
      barsApi.rows.map((r) => [String(r[0]), r[1]]),
    );
    const pie = d.panels[5].id;
    const slices = await (
      await ready(pie)
    )
      .locator('[data-testid=slice]')
      .evaluateAll((bs) => bs.map((b) => [(b as HTMLElement).dataset.label, Number((b as HTMLElement).dataset.value)]));
    assert.deepEqual(
      slices,
      (await answer(pie, host)).rows.map((r) => [String(r[0]), r[1]]).filter(([, v]) => (v as number) > 0),
    );
    if (s.ui.real) {
      const clients = apacheByClient();
      for (const [ip, n] of bars) assert.equal(n, clients.get(String(ip)), `requests of ${ip} in the log`);
      const statuses = apacheByStatus();
      for (const [code, n] of slices) assert.equal(n, statuses.get(String(code)), `status ${code} in the log`);
    }
    // the table: the API's rows, the test's own count per status
    const table = (await ready(d.panels[6].id)).locator('tbody tr:not(.table-spacer)');
    const rows = await table.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    const tableApi = await answer(d.panels[6].id, host);
    assert.deepEqual(
      rows,
      tableApi.rows.map((r) => r.map((x) => (typeof x === 'number' ? x.toLocaleString('en-US') : String(x)))),
    );
    for (const [status, n] of tableApi.rows)
      assert.equal(n, s.ui.app.filter((e) => e.host === host && String(e.status) === String(status)).length);
    // the histogram is drawn
    await (await ready('hist')).locator('canvas').first().waitFor();
  };

  it("shows every panel's numbers as the API answers them, and the test counts them", async () => {
    await page.goto(`${base}/ui/dashboards/${id}`);
    await page.setViewportSize({ width: 1440, height: 1240 });
    await checkPanels('web-1');
    await shootBothThemes(page, 'dashboard');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('runs every panel again for another $host$, which the URL keeps', async () => {
    await page.getByLabel('Host').selectOption('web-3');
    await waitFor('the host in the URL', () => new URL(page.url()).searchParams.get('var-host') === 'web-3');
    await checkPanels('web-3');
    await page.reload();
    assert.equal(await page.getByLabel('Host').inputValue(), 'web-3');
    await checkPanels('web-3');
  });

  it('drills down from a bar to the search page with its query, env, index and range', async () => {
    await page.goto(`${base}/ui/dashboards/${id}?var-host=web-2`);
    const bar = (await ready('clients')).locator('[data-testid=bar]').first();
    const label = (await bar.getAttribute('data-label'))!;
    const value = Number(await bar.getAttribute('data-value'));
    const ran = await answer('clients', 'web-2');
    await bar.click();
    await page.waitForURL((u) => u.pathname === '/ui/search');
    const u = new URL(page.url()).searchParams;
    assert.equal(u.get('q'), s.ui.real ? `${BACK} clientip="${label}"` : `host="${label}"`);
    assert.equal(u.get('env'), 'default');
    assert.equal(u.get('index'), s.ui.real ? 'apache' : 'app');
    // the page's load and the test's run resolve `now` apart (rounded to 10 s): the same range within a minute
    assert.ok(Math.abs(Date.parse(u.get('from')!) - Date.parse(ran.range.from)) <= 60_000, 'the same range');
    assert.ok(Math.abs(Date.parse(u.get('to')!) - Date.parse(ran.range.to)) <= 60_000, 'the same range');
    assert.equal(await shownCount(page), value);
  });

  it("drills down from a time series point to that bucket's hour, narrowed by its series", async () => {
    await page.goto(`${base}/ui/dashboards/${id}?var-host=web-2`);
    const plot = (await ready('levels')).locator('.viz-plot .u-over');
    const box = (await plot.boundingBox())!;
    // the newest buckets are at the right: a bar there, near the bottom, is the first series
    await plot.click({ position: { x: box.width - 6, y: box.height - 3 } });
    await page.waitForURL((u) => u.pathname === '/ui/search');
    const u = new URL(page.url()).searchParams;
    const q = u.get('q')!;
    assert.match(q, /^host="web-2"( level="\w+")?$/);
    assert.equal(Date.parse(u.get('to')!) - Date.parse(u.get('from')!), 3600_000, 'one bucket: an hour');
    const level = /level="(\w+)"/.exec(q)?.[1];
    const from = Date.parse(u.get('from')!);
    const want = s.ui.app.filter((e) => {
      const t = Date.parse(e['@timestamp']);
      return e.host === 'web-2' && (!level || e.level === level) && t >= from && t < from + 3600_000;
    }).length;
    assert.equal(await shownCount(page), want);
  });

  it('keeps a panel dragged and resized after a reload, saved with the version', async () => {
    await page.goto(`${base}/ui/dashboards/${id}`);
    await ready('hist');
    const before = await dash();
    await page.click('[data-testid=edit-dashboard]');
    const head = panel('hist').locator('.panel-head');
    const hb = (await head.boundingBox())!;
    const gridBox = (await page.locator('.dash-grid').boundingBox())!;
    // to the far right of the row below everything
    await page.mouse.move(hb.x + 30, hb.y + hb.height / 2);
    await page.mouse.down();
    await page.mouse.move(hb.x + 60, hb.y + 40, { steps: 4 });
    await page.mouse.move(gridBox.x + gridBox.width - hb.width + 30, gridBox.y + gridBox.height + 60, { steps: 8 });
    await page.mouse.up();
    const moved = await waitFor('the move saved', async () => {
      const d = await dash();
      return d.version > before.version ? d : null;
    });
    const g1 = moved.panels.find((p) => p.id === 'hist')!.grid;
    assert.notDeepEqual(g1, before.panels.find((p) => p.id === 'hist')!.grid);
    // resize by the corner: wider and taller
    const handle = panel('hist').locator('xpath=..').locator('.react-resizable-handle');
    await handle.scrollIntoViewIfNeeded();
    const rb = (await handle.boundingBox())!;
    await page.mouse.move(rb.x + rb.width / 2, rb.y + rb.height / 2);
    await page.mouse.down();
    await page.mouse.move(rb.x - 100, rb.y + 120, { steps: 8 });
    await page.mouse.up();
    const resized = await waitFor('the resize saved', async () => {
      const d = await dash();
      return d.version > moved.version ? d : null;
    });
    const g2 = resized.panels.find((p) => p.id === 'hist')!.grid;
    assert.ok(g2.h > g1.h, `taller: ${JSON.stringify(g1)} → ${JSON.stringify(g2)}`);
    // where it stands in the grid (the page scrolled to the corner): the same after a reload
    const place = async () => {
      const [p, g] = [(await panel('hist').boundingBox())!, (await page.locator('.dash-grid').boundingBox())!];
      return [p.x - g.x, p.y - g.y, p.width, p.height].map(Math.round);
    };
    // the grid moves panels with a short transition: a place is read once it holds still
    const settled = () =>
      waitFor('the panel still', async () => {
        const a = await place();
        await new Promise((r) => setTimeout(r, 250));
        return JSON.stringify(a) === JSON.stringify(await place()) ? a : null;
      });
    const shown = await settled();
    await page.reload();
    await ready('hist');
    assert.deepEqual(await settled(), shown);
  });

  it('tells the editor when someone else changed the dashboard first, and reloads theirs', async () => {
    await page.goto(`${base}/ui/dashboards/${id}`);
    await ready('levels');
    const d = await dash();
    await api('PATCH', `/api/dashboards/${id}`, { version: d.version, title: 'Web shop (theirs)' });
    await page.click('[data-testid=edit-dashboard]');
    await panel('errors').getByRole('button', { name: 'Remove panel Latest errors' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Remove panel' }).click();
    const banner = page.locator('[data-testid=version-conflict]');
    await banner.waitFor();
    assert.match((await banner.textContent())!, /Someone else changed this dashboard.*version \d+.*not saved/);
    await page.keyboard.press('Escape');
    assert.equal((await dash()).panels.length, 7, 'nothing removed');
    await banner.getByRole('button', { name: 'Reload' }).click();
    await banner.waitFor({ state: 'detached' });
    assert.equal(await page.locator('.dash-title').textContent(), 'Web shop (theirs)');
  });

  it("shows a restricted viewer of a shared dashboard only their env's numbers, with the hidden note", async () => {
    const ctx = await newContext(s.browser);
    const rita = await ctx.newPage();
    const errors = watchErrors(rita);
    await signIn(rita, base, 'rita', 'rita-password-123', `/ui/dashboards/${id}`);
    await rita.waitForURL((u) => u.pathname === `/ui/dashboards/${id}`);
    const total = rita.locator('[data-testid=dash-panel][data-panel-id=total]');
    await waitFor('the total panel', async () => ((await total.getAttribute('data-status')) === 'ready' ? true : null));
    const own = s.ui.app.filter((e) => e.host === 'web-1').length;
    assert.equal(await total.locator('[data-testid=single-value]').getAttribute('data-value'), String(own));
    assert.match((await total.locator('[data-testid=panel-hidden]').textContent())!, /hidden by your access/);
    // the default env's panels show as for the admin, with no note; rita cannot edit
    assert.equal(
      await rita.locator('[data-testid=dash-panel][data-panel-id=levels] [data-testid=panel-hidden]').count(),
      0,
    );
    assert.equal(await rita.locator('[data-testid=edit-dashboard]').count(), 0);
    assert.deepEqual(errors, []);
    await ctx.close();
  });

  it('draws every panel of the dashboard the first start ships, none an error', async () => {
    const listed = (await api('GET', '/api/dashboards')) as { dashboards: { id: string; title: string }[] };
    const shipped = listed.dashboards.find((x) => x.title.startsWith('svc:'))!;
    await page.goto(`${base}/ui/dashboards/${shipped.id}`);
    const panels = page.locator('[data-testid=dash-panel]');
    await panels.first().waitFor();
    await waitFor('every panel answered', async () =>
      (await page.locator('[data-testid=dash-panel][data-status=loading]').count()) === 0 ? true : null,
    );
    const statuses = await panels.evaluateAll((ps) => ps.map((p) => (p as HTMLElement).dataset.status));
    assert.equal(statuses.length, ((await api('GET', `/api/dashboards/${shipped.id}`)) as DashboardView).panels.length);
    assert.deepEqual(new Set(statuses), new Set(['ready']));
    // its Level variable takes several values: one less is one less `var-level` in the URL
    await page.locator('#var-level').click();
    await page.getByRole('dialog', { name: 'Level values' }).getByLabel('warn').uncheck();
    await waitFor('the level in the URL', () =>
      JSON.stringify(new URL(page.url()).searchParams.getAll('var-level')) === '["error"]' ? true : null,
    );
  });

  it("shows a deleted saved search as that panel's error only; the others draw", async () => {
    const saved = (await api('POST', '/api/saved-searches', {
      name: 'App errors',
      query: 'level=error | stats count',
      ...APP,
      range: { from: '-1h', to: 'now' },
    })) as { id: string };
    const d = (await api('POST', '/api/dashboards', {
      title: 'From saved searches',
      time: RANGE,
      panels: [
        {
          id: 'kept',
          title: 'Errors (saved)',
          type: 'single',
          source: { savedSearchId: saved.id },
          grid: { x: 0, y: 0, w: 12, h: 4 },
        },
        {
          id: 'inline',
          title: 'Warnings',
          type: 'single',
          source: { query: 'level=warn | stats count', ...APP },
          grid: { x: 12, y: 0, w: 12, h: 4 },
        },
      ],
    })) as DashboardView;
    await page.goto(`${base}/ui/dashboards/${d.id}`);
    const kept = await ready('kept');
    // the saved search's query over the dashboard's range, not its own hour
    const errors = s.ui.app.filter((e) => e.level === 'error').length;
    assert.equal(await kept.locator('[data-testid=single-value]').getAttribute('data-value'), String(errors));
    await api('DELETE', `/api/saved-searches/${saved.id}`);
    await page.reload();
    await waitFor('the dead reference said', async () =>
      (await panel('kept').getAttribute('data-status')) === 'error' ? true : null,
    );
    assert.match(
      (await panel('kept').locator('[data-testid=panel-error]').textContent())!,
      /no saved search .* you may read/,
    );
    const warnings = await ready('inline');
    assert.equal(
      await warnings.locator('[data-testid=single-value]').getAttribute('data-value'),
      String(s.ui.app.filter((e) => e.level === 'warn').length),
    );
  });

  it('runs the panels again at the auto-refresh interval chosen, kept in the URL', async () => {
    const runs: string[] = [];
    const seen = (r: Request) => {
      if (r.url().endsWith('/panels/total/run')) runs.push((r.postDataJSON() as { now: string }).now);
    };
    page.on('request', seen);
    await page.goto(`${base}/ui/dashboards/${id}`);
    await ready('total');
    await page.getByLabel('Auto-refresh').selectOption('10s');
    await waitFor('refresh in the URL', () => new URL(page.url()).searchParams.get('refresh') === '10s');
    // a new load: every panel asks again, with a later `now`
    const later = await waitFor('a refresh', () => runs.find((n) => n !== runs[0] && runs.length > 1), 30_000);
    assert.ok(Date.parse(later) > Date.parse(runs[0]));
    page.off('request', seen);
    await page.getByLabel('Auto-refresh').selectOption('off');
  });

  it('fits a phone screen and hides the shell in kiosk mode', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/ui/dashboards/${id}`);
      await ready('levels');
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 8)
          .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
      );
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `no sideways scroll: ${wide.join(', ')}`,
      );
      assert.equal(
        await page.locator('.var-error').count(),
        0,
        String(
          await page
            .locator('.var-error')
            .getAttribute('title', { timeout: 100 })
            .catch(() => ''),
        ),
      );
      await shootBothThemes(page, 'dashboard-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await page.click('[data-testid=kiosk]');
    await waitFor('kiosk in the URL', () => new URL(page.url()).searchParams.get('kiosk') === '1');
    assert.equal(await page.locator('.topbar').isVisible(), false);
    await page.reload();
    await ready('levels');
    assert.equal(await page.locator('.topbar').isVisible(), false);
    await page.keyboard.press('Escape');
    await page.locator('.topbar').waitFor();
    assert.equal(new URL(page.url()).searchParams.get('kiosk'), null);
  });
});
