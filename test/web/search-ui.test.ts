import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { call, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { browserSkipReason, newContext, shownCount, signIn, waitFor, shootBothThemes } from './browser.js';
import { apiSearch, countTerm, ingestNdjson, linesOf, OPENSSH_LOG, APACHE_LOG } from './data.js';
import { parseCsv } from '../helpers/csv.js';
import { startUiSession, type UiServer, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI search tests ${skip}`);

describe('the search page in Chromium', { skip }, () => {
  let session: UiSession;
  let ui: UiServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  const base = () => ui.srv.url;
  const open = async (params: Record<string, string>) => {
    await page.goto(`${base()}/ui/search?${new URLSearchParams(params)}`);
    return shownCount(page);
  };

  before(async () => {
    ({ ui, browser, ctx, page, errors } = session = await startUiSession());
  });

  after(async () => {
    await session?.close();
  });

  it('sends a signed-out visitor to the login page and back to the search they opened', async () => {
    const c = await newContext(browser);
    const p = await c.newPage();
    await p.goto(`${base()}/ui/search?q=error&from=-7d`);
    await p.waitForURL((u) => u.pathname === '/ui/login');
    assert.equal(new URL(p.url()).searchParams.get('next'), '/ui/search?q=error&from=-7d');
    await p.fill('input[name=username]', 'admin');
    await p.fill('input[name=password]', TEST_ADMIN_PASSWORD);
    await p.click('button[type=submit]');
    await p.waitForURL((u) => u.pathname === '/ui/search');
    assert.equal(new URL(p.url()).search, '?q=error&from=-7d');
    await c.close();
  });

  it('answers a wrong password with one generic message', async () => {
    const c = await newContext(browser);
    const p = await c.newPage();
    await p.goto(`${base()}/ui/login`);
    await p.fill('input[name=username]', 'admin');
    await p.fill('input[name=password]', 'not-the-password');
    await p.click('button[type=submit]');
    const alert = await waitFor('the login error', () => p.locator('[role=alert]').textContent());
    assert.equal(alert, 'Sign-in failed. Check your user name and password.');
    assert.equal(new URL(p.url()).pathname, '/ui/login');
    await c.close();
  });

  it('shows the count the API gives, and the count of the raw file, for real data sets', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache/OpenSSH logs');
    for (const [index, file, term] of [
      ['apache', APACHE_LOG, 'GET'],
      ['openssh', OPENSSH_LOG, 'invalid'],
    ] as const) {
      const shown = await open({ q: term, env: 'default', index, from: '' });
      const api = await apiSearch(ui.srv, ui.admin, { q: term, env: 'default', index });
      assert.equal(shown, api.meta.matched, `${index}: UI and API`);
      assert.equal(shown, countTerm(linesOf(file), term), `${index}: UI and the file`);
      assert.ok(shown > 0);
    }
  });

  it('turns an empty result into a hint with a one-click search of the range that holds the events', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    await page.goto(`${base()}/ui/search?${new URLSearchParams({ q: '', index: 'apache', from: '-24h' })}`);
    const hint = await waitFor('the hint', () => page.locator('[data-testid=hint]').textContent());
    const lines = linesOf(APACHE_LOG).length;
    assert.match(hint, new RegExp(`${lines} events of env "default" index "apache" lie outside the time range`));
    await page.click('[data-testid=hint] button');
    await page.waitForURL((u) => u.searchParams.get('from') !== '-24h');
    assert.equal(await shownCount(page), lines);
  });

  it("runs what the editor shows when a preset is picked, and lets the query's earliest= win over the picker", async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no OpenSSH log');
    const lines = linesOf(OPENSSH_LOG);
    const sshd = lines.filter((l) => countTerm([l], 'sshd') === 1);
    const failed = sshd.filter((l) => countTerm([l], 'failed') + countTerm([l], 'failure') > 0).length;
    await open({ q: 'sshd', index: 'openssh', from: '-24h' });
    // typed, not run: picking "All time" runs it, never the previous query under the new range
    await page.click('.cm-content');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('sshd (failed OR failure)');
    await page.keyboard.press('Escape');
    await page.click('[data-testid=time-range]');
    await page.click('.time-presets button:has-text("All time")');
    await page.waitForURL((u) => u.searchParams.get('q') === 'sshd (failed OR failure)');
    assert.equal(await shownCount(page), failed);
    assert.equal(await page.locator('.cm-content').textContent(), 'sshd (failed OR failure)');
    // earliest= in the query sets the range; the picker says so, and its 24 hours cut nothing
    const all = await open({ q: 'earliest=-10y sshd', index: 'openssh', from: '-24h' });
    assert.equal(all, sshd.length);
    assert.match(
      (await page.locator('[data-testid=time-range]').textContent()) ?? '',
      /earliest=-10y \(in the query\)/,
    );
    await page.click('[data-testid=time-range]');
    await page.locator('[data-testid=time-from-query]').waitFor();
    await shootBothThemes(page, 'time-from-query');
    await page.keyboard.press('Escape');
    // a relative start typed in the picker: -5y
    await open({ q: 'sshd', index: 'openssh', from: '-24h' });
    await page.click('[data-testid=time-range]');
    await page.fill('input[aria-label="Relative start"]', '-5y');
    await page.click('.time-typed button');
    await page.waitForURL((u) => u.searchParams.get('from') === '-5y');
    assert.equal(await shownCount(page), sshd.length);
    assert.equal(await page.locator('[data-testid=time-range]').textContent(), 'Last 5y');
  });

  it('is usable from the keyboard: a skip link to the results, j/k between events, Enter to open, ? for the shortcuts', async () => {
    await open({ q: '', index: 'app', from: '-24h' });
    await page.locator('.event-line').nth(2).waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'results');
    const focusedRow = () =>
      page.evaluate(() => [...document.querySelectorAll('.event-line')].indexOf(document.activeElement as Element));
    await page.keyboard.press('j');
    assert.equal(await focusedRow(), 0);
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focusedRow(), 2);
    await page.keyboard.press('k');
    assert.equal(await focusedRow(), 1);
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.event-line').nth(1).getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('Enter');
    await page.keyboard.press('?');
    const sheet = await waitFor('the shortcut sheet', () => page.locator('[data-testid=shortcuts]').textContent());
    for (const k of ['/', 'j or ↓', 'k or ↑', 'Ctrl+F', '?']) assert.ok(sheet.includes(k), k);
    await shootBothThemes(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await waitFor('the sheet closed', async () => (await page.locator('[data-testid=shortcuts]').count()) === 0);
  });

  it('fits a phone (390×844): no sideways scroll, a query typed and run, the fields in a drawer', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await open({ q: '', index: 'app', from: '-24h' });
      const wide = () => page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok((await wide()) <= 390, `search page ${await wide()} px wide`);
      await page.click('.cm-content');
      await page.keyboard.type('level=error');
      await page.keyboard.press('Escape');
      await page.click('[data-testid=run]');
      await page.waitForURL((u) => u.searchParams.get('q') === 'level=error');
      assert.ok((await shownCount(page)) > 0);
      assert.equal(await page.locator('[data-testid=fields]').isVisible(), false);
      await page.click('[data-testid=fields-toggle]');
      await page.locator('[data-testid=fields]').waitFor({ state: 'visible' });
      await shootBothThemes(page, 'phone-fields');
      await page.click('button[aria-label="Close fields"]');
      await page.locator('[data-testid=fields]').waitFor({ state: 'hidden' });
      await shootBothThemes(page, 'phone-search');
      for (const p of ['admin/api-keys', 'admin/users', 'monitors', 'saved']) {
        await page.goto(`${base()}/ui/${p}`);
        await page.waitForLoadState('networkidle');
        assert.ok((await wide()) <= 390, `${p}: ${await wide()} px wide`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('lists in an open event the fields found in its message at search time, with filter and copy', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no OpenSSH log');
    await open({ q: 'sshd Failed password', index: 'openssh', from: '' });
    await page.locator('[data-testid=fields]').getByText('pid', { exact: true }).waitFor();
    await page.locator('.event-line').first().click();
    const detail = page.locator('.event-detail').first();
    const row = (name: string) => detail.locator(`.fields-table tr[data-field="${name}"]`);
    await waitFor('the search-time fields', () => row('pid').count());
    const message = (await detail.locator('.fields-table tr').first().locator('td').first().textContent()) ?? '';
    // the test's own reading of the line: `Dec 10 11:04:45 LabSZ sshd[24200]: Failed password …`
    const m = /^\w{3} +\d+ [\d:]+ \S+ (\w+)\[(\d+)\]: /.exec(message);
    assert.ok(m, message);
    assert.equal(await row('program').locator('td').first().textContent(), m[1]);
    assert.equal(await row('pid').locator('td').first().textContent(), m[2]);
    assert.match((await row('pid').locator('th').textContent()) ?? '', /found/);
    assert.equal(await row('pid').locator('button[aria-label="Filter for pid"]').count(), 1);
    await shootBothThemes(page, 'event-detail');
  });

  it('shows what the answer could not honour (meta.warnings) above the results', async () => {
    await page.goto(`${base()}/ui/search?${new URLSearchParams({ q: 'eventtype=failed_login', from: '' })}`);
    const text = await waitFor('the warnings', () => page.locator('[data-testid=search-warnings]').textContent());
    assert.match(text, /"eventtype" is a Splunk event type, which svc does not define/);
  });

  it('signs out from the account menu, after which the search page asks to sign in again', async () => {
    const c = await newContext(browser);
    const p = await c.newPage();
    await signIn(p, base(), 'admin', TEST_ADMIN_PASSWORD);
    await p.click('button.user-button');
    await p.click('button:has-text("Sign out")');
    await p.waitForURL((u) => u.pathname === '/ui/login');
    await p.goto(`${base()}/ui/search`);
    await p.waitForURL((u) => u.pathname === '/ui/login');
    await c.close();
  });

  it('runs a query typed in the editor and keeps query and range in the URL', async () => {
    await open({ q: '', env: 'default', index: 'app', from: '-24h' });
    await page.click('.cm-content');
    await page.keyboard.type('level=error status=500');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.waitForURL((u) => u.searchParams.get('q') === 'level=error status=500');
    const shown = await shownCount(page);
    assert.equal(shown, ui.app.filter((e) => e.level === 'error' && e.status === 500).length);
    assert.equal(new URL(page.url()).searchParams.get('from'), '-24h');
  });

  it('underlines a query the parser refuses at the position it names', async () => {
    await page.goto(
      `${base()}/ui/search?${new URLSearchParams({ q: 'level=error | stats count by', index: 'app', from: '-24h' })}`,
    );
    const msg = await waitFor('the parse error', () => page.locator('[data-testid=search-error]').textContent());
    assert.match(msg, /missing|unexpected/);
    await waitFor('the underline', () => page.locator('.cm-lintRange-error').count());
  });

  it('keeps the event rows virtual: a thousand events, a few dozen rows in the page', async () => {
    const shown = await open({ q: '', index: 'app', from: '-24h' });
    assert.equal(shown, ui.app.length);
    const rows = await page.locator('.event-row').count();
    assert.ok(rows > 10 && rows < 100, `${rows} rows rendered`);
  });

  it('finds text in the loaded events with its own find box', async () => {
    await open({ q: '', index: 'app', from: '-24h' });
    await page.fill('input[aria-label="Find in results"]', 'status=404');
    const text = await waitFor('find count', () => page.locator('[data-testid=find-count]').textContent());
    const expected = ui.app.filter((e) => e.message.includes('status=404')).length;
    assert.equal(text, `1/${expected}`);
    await waitFor('a marked match', () => page.locator('mark.find-hit').count());
  });

  it('runs a new query from its first page, in one search, after more events were shown for the last one', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    await open({ q: '', env: 'default', index: 'apache', from: '' });
    await page.click('.list-footer button');
    await waitFor('every event shown', async () =>
      (await page.locator('[data-testid=result-count]').textContent())?.includes('newest') ? null : true,
    );
    const limits: (string | null)[] = [];
    const record = (r: Request) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/search') limits.push(u.searchParams.get('limit'));
    };
    page.on('request', record);
    await page.click('.cm-content');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('GET');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.waitForURL((u) => u.searchParams.get('q') === 'GET');
    await shownCount(page);
    page.off('request', record);
    // not first a search with the last query's page size, cancelled once the page size is reset
    assert.deepEqual(limits, ['1000']);
  });

  it('zooms into a range dragged across the histogram and puts it in the URL', async () => {
    await open({ q: '', index: 'app', from: '-24h' });
    const over = page.locator('[data-testid=histogram] .u-over');
    const box = await waitFor('the histogram', () => over.boundingBox());
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.waitForURL((u) => u.searchParams.has('to'));
    const u = new URL(page.url());
    const from = u.searchParams.get('from')!;
    const to = u.searchParams.get('to')!;
    assert.ok(Date.parse(from) < Date.parse(to), `${from} .. ${to}`);
    const shown = await shownCount(page);
    const inRange = ui.app.filter(
      (e) => Date.parse(e['@timestamp']) >= Date.parse(from) && Date.parse(e['@timestamp']) < Date.parse(to),
    ).length;
    assert.equal(shown, inRange);
    const api = await apiSearch(ui.srv, ui.admin, { q: '*', index: 'app', from, to });
    assert.equal(shown, api.meta.matched);
  });

  it('adds a field value to the query from the field list, and excludes another', async () => {
    await open({ q: '', index: 'app', from: '-24h' });
    await page.click('[data-testid=fields] button[title="Filter for host=web-2"]');
    await page.waitForURL((u) => u.searchParams.get('q') === 'host="web-2"');
    assert.equal(await shownCount(page), ui.app.filter((e) => e.host === 'web-2').length);

    await open({ q: '', index: 'app', from: '-24h' });
    await page.click('[data-testid=fields] button[title="Filter out host=web-3"]');
    await page.waitForURL((u) => u.searchParams.get('q') === 'NOT host="web-3"');
    assert.equal(await shownCount(page), ui.app.filter((e) => e.host !== 'web-3').length);
  });

  it('stacks the histogram by a field and keeps it in the URL', async () => {
    await open({ q: '', index: 'app', from: '-24h', by: 'level' });
    const legend = await waitFor(
      'the legend',
      async () => (await page.locator('.histogram-legend').textContent()) || null,
    );
    for (const level of ['info', 'warn', 'error', 'debug']) assert.ok(legend.includes(level), legend);
  });

  it('opens the events around an event, as the context API answers them', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no OpenSSH log');
    await open({ q: '', index: 'openssh', from: '' });
    await page.locator('.event-line').nth(9).click();
    const detail = page.locator('.event-detail');
    await waitFor('the event detail', () => detail.count());
    // the detail leaves out empty core fields: an absent row is an empty value
    const value = async (k: string) => {
      const cell = detail.locator(`tr:has(th:text-is("${k}")) td.mono`);
      return (await cell.count()) ? ((await cell.first().textContent()) ?? '') : '';
    };
    const time = await value('_time');
    const host = await value('host');
    const source = await value('source');
    await detail.locator('button', { hasText: 'Events around this one' }).click();
    const anchor = await waitFor('the anchor row', async () =>
      (await page.locator('[data-anchor]').count()) ? page.locator('[data-anchor]') : null,
    );
    const ctxApi = (await call(
      ui.srv,
      'GET',
      `/api/context?${new URLSearchParams({ env: 'default', index: 'openssh', time, host, source, before: '20', after: '20' })}`,
      { token: ui.admin },
    )) as { before: unknown[]; at: unknown[]; after: unknown[] };
    const rows = await page.locator('.context-row').count();
    assert.equal(rows, ctxApi.before.length + ctxApi.at.length + ctxApi.after.length);
    assert.ok(rows > 20, `${rows} rows`);
    assert.ok(((await anchor.textContent()) ?? '').length > 0);
    await page.keyboard.press('Escape');
  });

  it('streams an event ingested during live tail into the list, and holds it while paused', async () => {
    await open({ q: '', index: 'app', from: '-1h' });
    await page.click('button:has-text("Live")');
    await waitFor('live mode', () => page.locator('[data-testid=live-note]').count());
    const marker = `live-marker-${Date.now()}`;
    const t0 = Date.now();
    await ingestNdjson(ui.srv, ui.ingest, 'app', [
      { '@timestamp': new Date().toISOString(), host: 'web-9', level: 'info', message: `${marker} arrived` },
    ]);
    await waitFor('the live event', () => page.locator('.event-message', { hasText: marker }).count());
    console.log(`# live tail: event on screen ${Date.now() - t0} ms after its ingest was acknowledged`);

    await page.click('button:has-text("Pause")');
    const held = `held-marker-${Date.now()}`;
    await ingestNdjson(ui.srv, ui.ingest, 'app', [
      { '@timestamp': new Date().toISOString(), host: 'web-9', level: 'info', message: held },
    ]);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await page.locator('.event-message', { hasText: held }).count(), 0, 'a paused tail shows nothing new');
    await page.click('button:has-text("Resume")');
    await waitFor('the held event after resume', () => page.locator('.event-message', { hasText: held }).count());
    await page.click('button:has-text("Stop live")');
  });

  it("counts the live events, and the empty search's notices step aside while they arrive", async () => {
    const marker = `livecount${Date.now()}`;
    await open({ q: marker, index: 'app', from: '-1h' });
    await page.locator('[data-testid=hint]').waitFor();
    await page.click('button:has-text("Live")');
    await waitFor('live mode', () => page.locator('[data-testid=live-note]').count());
    await ingestNdjson(
      ui.srv,
      ui.ingest,
      'app',
      [1, 2].map((n) => ({
        '@timestamp': new Date().toISOString(),
        host: 'web-9',
        level: 'info',
        message: `${marker} ${n}`,
      })),
    );
    const live = await waitFor('the live count', async () => {
      const t = await page.locator('[data-testid=live-count]').textContent();
      return t?.startsWith('2 ') ? t : null;
    });
    assert.equal(live, '2 events · live');
    assert.equal(await page.locator('[data-testid=hint]').count(), 0, 'no "nothing matched" hint under live rows');
    assert.equal(
      await page.locator('.histogram-empty').textContent(),
      'Live events arrive below; the histogram shows the search',
    );
    assert.equal(
      await page.locator('[data-testid=fields-note]').textContent(),
      'Fields of the live events show when the search runs again',
    );
    await shootBothThemes(page, 'live-tail');
    await page.click('button:has-text("Stop live")');
  });

  it('opens a copied URL in a new page with the same query, range and results', async () => {
    const shown = await open({ q: 'level=warn', env: 'default', index: 'app', from: '-24h', by: 'host' });
    const url = page.url();
    const other = await ctx.newPage();
    await other.goto(url);
    assert.equal(await shownCount(other), shown);
    assert.equal(await other.locator('.cm-content').textContent(), 'level=warn');
    assert.equal(await other.locator('[data-testid=time-range]').textContent(), 'Last 24 hours');
    await other.close();
  });

  it("exports the results as CSV whose rows are the API's", async () => {
    const params = { q: 'status=404', env: 'default', index: 'app', from: '-24h' };
    const shown = await open(params);
    await page.click('button:has-text("Export")');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
    const csv = parseCsv(readFileSync(await download.path(), 'utf8'));
    const header = csv[0];
    const rows = csv.slice(1);
    assert.equal(rows.length, shown);
    const api = await apiSearch(ui.srv, ui.admin, { ...params, limit: 10_000 });
    const key = (time: string, message: string) => `${time} ${message}`;
    const fromCsv = rows.map((r) => key(r[header.indexOf('_time')], r[header.indexOf('message')])).sort();
    const fromApi = api.events.map((e) => key(e.time, e.message)).sort();
    assert.deepEqual(fromCsv, fromApi);
  });

  it('lists the fields found in a plain-text access log and filters by one of them', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    await open({ q: '', env: 'default', index: 'apache', from: '' });
    const sidebar = page.locator('[data-testid=fields]');
    for (const f of ['clientip', 'status', 'useragent'])
      await waitFor(`the field ${f}`, async () => ((await sidebar.textContent())?.includes(f) ? true : null));
    const status404 = linesOf(APACHE_LOG).filter((l) => l.split('"')[2]?.trim().split(' ')[0] === '404').length;
    assert.equal(await open({ q: 'status=404', env: 'default', index: 'apache', from: '' }), status404);
    await page.waitForTimeout(300);
    await shootBothThemes(page, 'extracted-fields');
  });

  it('opens a timechart as a chart whose legend reads without hovering, keeps the view in a copied link, and shows table times in local time', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    const lines = linesOf(APACHE_LOG);
    await page.goto(
      `${base()}/ui/search?${new URLSearchParams({ q: '* | timechart span=1d count', env: 'default', index: 'apache', from: '' })}`,
    );
    await page.locator('[data-testid=result-chart] canvas').waitFor();
    assert.equal(await page.locator('[role=tab][aria-selected=true]').textContent(), ' Chart');
    // no cursor over the plot: each series says its total
    const legend = await waitFor('the legend total', async () => {
      const text = await page.locator('[data-testid=result-chart] .u-legend').textContent();
      return text?.includes('total') ? text : null;
    });
    assert.match(legend, new RegExp(`count\\s*total ${lines.length.toLocaleString('en-US')}`));
    await shootBothThemes(page, 'timechart');
    // the table view goes into the URL, so a copied link opens the same view
    await page.click('[role=tab]:has-text("Table")');
    await page.waitForURL((u) => u.searchParams.get('view') === 'table');
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base() });
    await page.click('button:has-text("Copy link")');
    await page.locator('button:has-text("Copied")').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, page.url());
    const other = await ctx.newPage();
    await other.goto(copied);
    await other.locator('[data-testid=table-results] tbody tr').first().waitFor();
    assert.equal(await other.locator('[role=tab][aria-selected=true]').textContent(), ' Table');
    // the first bucket's time as the browser's zone writes it, not the API's UTC microseconds
    const first = other.locator('[data-testid=table-results] tbody tr td').first();
    const utc = await first.getAttribute('title');
    assert.match(utc ?? '', /^\d{4}-\d\d-\d\dT00:00:00\.000000Z \(UTC\)$/);
    const shown = await first.textContent();
    const d = new Date(utc!.slice(0, -6));
    const p2 = (n: number) => String(n).padStart(2, '0');
    assert.equal(
      shown,
      `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`,
    );
    await other.close();
  });

  it('pivots a chart and groups messages into templates, as tables', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache/OpenSSH logs');
    await page.goto(
      `${base()}/ui/search?${new URLSearchParams({ q: '* | chart count over method by status', env: 'default', index: 'apache', from: '', view: 'table' })}`,
    );
    const head = await waitFor('the chart table', async () =>
      (await page.locator('[data-testid=table-results] th').count()) > 3
        ? page.locator('[data-testid=table-results] thead').textContent()
        : null,
    );
    for (const c of ['method', '200', '404']) assert.ok(head?.includes(c), head ?? '');
    await page.goto(
      `${base()}/ui/search?${new URLSearchParams({ q: '* | patterns limit=12', env: 'default', index: 'openssh', from: '' })}`,
    );
    const body = await waitFor('the templates', async () =>
      (await page.locator('[data-testid=table-results] tbody tr').count()) > 5
        ? page.locator('[data-testid=table-results] tbody').textContent()
        : null,
    );
    assert.ok(body?.includes('Failed password for <*> from <*> port <*> ssh2'), body ?? '');
    await page.waitForTimeout(300);
    await shootBothThemes(page, 'patterns');
  });

  it('renders without script errors or CSP violations, and saves the screenshot for the README', async () => {
    await open({ q: 'GET NOT status=200', env: 'default', index: 'app', from: '-6h', by: 'level' });
    await page.locator('.event-line').nth(1).click();
    await page.waitForTimeout(300);
    await shootBothThemes(page, 'search');
    assert.deepEqual(errors, []);
  });
});
