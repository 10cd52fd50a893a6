import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PanelAnswer } from '../../src/dashboards/types.js';
import { call } from '../helpers/auth.js';
import { browserSkipReason, waitFor } from './browser.js';
import { startUiSession, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI busy-dashboard test ${skip}`);

const PANELS = ['info', 'warn', 'error', 'debug', 'hosts', 'levels', 'total', 'statuses'];

/**
 * A dashboard opened while svc runs one search at a time and lets none wait for a slot
 * (SVC_MAX_CONCURRENT_SEARCHES=1, SVC_SEARCH_QUEUE_WAIT_SECS=0): the panels the search gate refuses
 * with 429 are asked again, and every panel ends drawn with the API's numbers, none as an error.
 */
describe('A dashboard on a busy svc, in Chromium', { skip }, () => {
  let s: UiSession;
  let id = '';
  const api = (method: string, path: string, body?: unknown) =>
    call(s.ui.srv, method, path, { token: s.ui.admin, body });

  before(async () => {
    s = await startUiSession({ SVC_MAX_CONCURRENT_SEARCHES: '1', SVC_SEARCH_QUEUE_WAIT_SECS: '0' });
    const query = (pid: string) =>
      ['info', 'warn', 'error', 'debug'].includes(pid)
        ? `level=${pid} | stats count`
        : pid === 'hosts'
          ? '* | stats count by host'
          : pid === 'levels'
            ? '* | stats count by level'
            : pid === 'total'
              ? '* | stats count'
              : '* | top limit=5 status';
    const d = (await api('POST', '/api/dashboards', {
      title: 'Busy',
      time: { from: '-7h', to: 'now' },
      panels: PANELS.map((pid, i) => ({
        id: pid,
        title: pid,
        type: ['hosts', 'levels', 'statuses'].includes(pid) ? 'table' : 'single',
        source: { query: query(pid), env: 'default', index: 'app' },
        grid: { x: (i % 4) * 6, y: Math.floor(i / 4) * 6, w: 6, h: 6 },
      })),
    })) as { id: string };
    id = d.id;
  });
  after(async () => {
    await s?.close();
  });

  it('asks again the panels refused 429 too_many_searches, and draws every one with the API numbers', async () => {
    const refused: string[] = [];
    s.page.on('response', (r) => {
      if (r.url().endsWith('/run') && r.status() === 429) refused.push(r.url());
    });
    await s.page.goto(`${s.ui.srv.url}/ui/dashboards/${id}`);
    const status = (st: string) => s.page.locator(`[data-testid=dash-panel][data-status=${st}]`).count();
    const panels = () => s.page.locator('[data-testid=dash-panel]').count();
    await waitFor(
      'every panel answered',
      async () => ((await panels()) === PANELS.length && (await status('loading')) === 0 ? true : null),
      60_000,
    );
    assert.equal(await status('error'), 0, 'panels shown as errors');
    assert.equal(await status('ready'), PANELS.length);
    // the gate did refuse some at first: the retry is what drew them
    assert.ok(refused.length > 0, 'no run was refused: the test did not exercise the busy gate');
    // the single values are the API's numbers (asked one at a time, so the gate lets each through)
    // and the test's own count of the events it sent
    for (const pid of ['info', 'warn', 'error', 'debug', 'total']) {
      const a = (await api('POST', `/api/dashboards/${id}/panels/${pid}/run`, {})) as PanelAnswer & {
        rows: unknown[][];
      };
      const want = s.ui.app.filter((e) => pid === 'total' || e.level === pid).length;
      assert.equal(Number(a.rows[0][0]), want, `API answer of ${pid}`);
      const shown = await s.page.locator(`[data-testid=dash-panel][data-panel-id="${pid}"]`).innerText();
      assert.ok(shown.replace(/[,\s]/g, '').includes(String(want)), `panel ${pid} shows ${shown}, want ${want}`);
    }
    assert.deepEqual(s.errors, []);
  });
});
