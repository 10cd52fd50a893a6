import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call } from '../helpers/auth.js';
import { browserSkipReason, waitFor } from './browser.js';
import { startUiSession, type UiServer, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI chart tests ${skip}`);

// the real Apache log spans 83 hours: 5-minute buckets × (10 client IPs + OTHER) are ~11,000 points
const QUERY = '* | timechart span=5m limit=10 count by clientip';
// the UI's first page (web/src/search/useSearchState.ts FIRST_PAGE)
const UI_LIMIT = 1000;

interface Table {
  columns: string[];
  rows: unknown[][];
}

/** Pixels of the plot's canvas that are drawn on (axes, grid and lines). */
async function drawnPixels(page: Page): Promise<number> {
  return page.evaluate(() => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid=result-chart] canvas')!;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
    return n;
  });
}

describe('timecharts in Chromium', { skip }, () => {
  let session: UiSession;
  let ui: UiServer;
  let page: Page;

  before(async () => {
    ({ ui, page } = session = await startUiSession());
  });

  after(async () => {
    await session?.close();
  });

  // the chart's search over all of the Apache log, and the API's answer to it with the page's limit
  const params = { q: QUERY, env: 'default', index: 'apache', from: '' };
  const apiAnswer = async () =>
    (await call(ui.srv, 'GET', `/api/search?${new URLSearchParams({ ...params, limit: String(UI_LIMIT) })}`, {
      token: ui.admin,
    })) as Table;

  it('draws a timechart of ~10,000 points with one line per series and legend totals equal to the answer', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    const answer = await apiAnswer();
    const series = answer.columns.filter((c) => c !== '_time');
    assert.ok(answer.rows.length * series.length >= 9000, `${answer.rows.length} rows × ${series.length} series`);
    // the test's own sums of the API answer, per series
    const totals = new Map(
      series.map((s) => {
        const i = answer.columns.indexOf(s);
        return [s, answer.rows.reduce((n: number, r) => n + (typeof r[i] === 'number' ? r[i] : 0), 0)];
      }),
    );

    await page.goto(`${ui.srv.url}/ui/search?${new URLSearchParams(params)}`);
    await page.locator('[data-testid=result-chart] canvas').waitFor();
    const legend = await waitFor('the legend with every series', async () => {
      const rows = await page
        .locator('[data-testid=result-chart] .u-legend .u-series')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.querySelector('.u-label')?.textContent ?? '',
            tr.querySelector('.u-value')?.textContent ?? '',
          ]),
        );
      return rows.length === series.length + 1 ? rows : null;
    });
    // the first row is the x axis (time); then each series, with its total while no cursor is over the plot
    assert.deepEqual(
      legend.slice(1).map(([label]) => label),
      series,
    );
    for (const [label, value] of legend.slice(1))
      assert.equal(value, `total ${totals.get(label)!.toLocaleString('en-US')}`, `the legend total of ${label}`);
    // drawn: hiding every series (a click on its legend entry) takes its lines off the canvas
    const withLines = await drawnPixels(page);
    const entries = await page.locator('[data-testid=result-chart] .u-legend .u-series').all();
    for (const entry of entries.slice(1)) await entry.locator('th').click();
    const without = await waitFor('the series hidden', async () => {
      const off = await page.locator('[data-testid=result-chart] .u-legend .u-series.u-off').count();
      return off === series.length ? drawnPixels(page) : null;
    });
    assert.ok(withLines - without > 1000, `${withLines} pixels drawn with the lines, ${without} without`);
  });

  it('draws the chart again when the theme changes (a canvas keeps the colours it was drawn with)', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    const hourly = { ...params, q: '* | timechart span=1h count' };
    await page.goto(`${ui.srv.url}/ui/search?${new URLSearchParams(hourly)}`);
    await page.locator('[data-testid=result-chart] canvas').waitFor();
    const image = () =>
      page.evaluate(() => document.querySelector<HTMLCanvasElement>('[data-testid=result-chart] canvas')!.toDataURL());
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    const light = await waitFor('the chart drawn', async () => ((await drawnPixels(page)) > 0 ? image() : null));
    assert.equal(await theme(), 'light');
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await waitFor('the dark theme', async () => (await theme()) === 'dark');
      // the grid and axes take the dark theme's colours: the canvas is drawn again
      await waitFor('the chart drawn again in the dark theme', async () => (await image()) !== light, 5_000);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('shows the same answer as a table that keeps only the rows in view in the DOM and scrolls to the last row', async (t) => {
    if (!ui.real) return t.skip('SVC_REAL_DATA has no Apache log');
    const answer = await apiAnswer();
    await page.goto(`${ui.srv.url}/ui/search?${new URLSearchParams({ ...params, view: 'table' })}`);
    const table = page.locator('[data-testid=table-results]');
    const rows = table.locator('tbody tr:not(.table-spacer)');
    await rows.first().waitFor();
    // the first row is the answer's first, with every column
    assert.equal(await rows.first().locator('td').first().getAttribute('title'), `${String(answer.rows[0][0])} (UTC)`);
    assert.equal(await rows.first().locator('td').count(), answer.columns.length);
    const inDom = await rows.count();
    assert.ok(inDom < 100 && inDom < answer.rows.length / 5, `${inDom} of ${answer.rows.length} rows in the DOM`);
    // scrolled to the bottom, the last row is there
    await table.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = `${String(answer.rows.at(-1)![0])} (UTC)`;
    await waitFor('the last row', async () =>
      (await rows.last().locator('td').first().getAttribute('title')) === last ? true : null,
    );
  });
});
