import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { adminToken, call, createIngestToken, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { ScriptedProvider } from '../fixtures/llm/scripted-provider.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { eventId } from '../../src/mcp/event-id.js';
import type { EventJson } from '../../src/query/types.js';
import {
  browserSkipReason,
  launchBrowser,
  newContext,
  signIn,
  waitFor,
  watchErrors,
  shootBothThemes,
} from './browser.js';
import { appEvents, ingestNdjson } from './data.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI monitors tests ${skip}`);

/**
 * The Monitors page and the search page's Ask panel in Chromium against a real svc process with a
 * (scripted) LLM provider: a monitor created with a preview that matches counts the test makes from
 * the events it ingested, run, firing, its history; a question whose steps and cited event show as
 * they stream; a written query put into the editor and run.
 */
describe('Monitors and Ask in Chromium', { skip }, () => {
  let srv: ProcessServer;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const llm = new ScriptedProvider();
  const hook = new WebhookReceiver();
  const posted = () => hook.peek('/alerts');
  let hookUrl = '';
  const app = appEvents(600, Date.now());
  /** Errors per host over the last 6 hours, from the events themselves (the oracle). */
  const errorsByHost = new Map<string, number>();
  for (const e of app) if (e.level === 'error') errorsByHost.set(e.host, (errorsByHost.get(e.host) ?? 0) + 1);
  const counts = [...errorsByHost.values()].sort((a, b) => a - b);
  const threshold = counts[Math.floor(counts.length / 2)];
  const expectedFiring = [...errorsByHost]
    .filter(([, n]) => n > threshold)
    .map(([h]) => `host=${h}`)
    .sort();

  before(async () => {
    await llm.start();
    await hook.start();
    hookUrl = `${hook.url}/alerts`;
    dataDir = mkdtempSync(join(tmpdir(), 'svc-ui-monitors-'));
    srv = await startServerProcess({
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_LOG_LEVEL: 'info',
      SVC_LLM_URL: llm.url,
      SVC_OUTBOUND_ALLOW: '127.0.0.1',
    });
    await adminToken(srv);
    await ingestNdjson(srv, await createIngestToken(srv, { env: 'default' }), 'app', app);
    browser = await launchBrowser();
    const ctx = await newContext(browser);
    page = await ctx.newPage();
    errors = watchErrors(page);
    await signIn(page, srv.url, 'admin', TEST_ADMIN_PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await llm.close();
    await hook.close();
  });

  it('creates a monitor whose preview finds what the events say, runs it, and shows it firing', async () => {
    await page.goto(`${srv.url}/ui/monitors`);
    await waitFor('the empty list', async () =>
      (await page.locator('[data-testid=monitors]').textContent())!.includes('No monitors yet'),
    );
    await page.click('button:has-text("New monitor")');
    const dialog = page.locator('dialog[open]');
    await dialog.getByLabel('Name', { exact: true }).fill('errors per host');
    await dialog.locator('[data-testid=query-editor]').fill('level=error | stats count by host');
    await dialog.getByLabel('Index', { exact: true }).selectOption('app');
    await dialog.getByLabel('Over the last').fill('6h');
    await dialog.getByLabel('Fires when').fill(`count > ${threshold}`);
    await dialog.getByLabel('Webhook').fill(hookUrl);
    assert.equal(
      await page.locator('button[role=radio]:has-text("AI judgement")').isDisabled(),
      false,
      'AI is offered: svc has a provider',
    );
    await page.click('.modal-foot button:has-text("Preview")');
    const preview = await waitFor('the preview', () => page.locator('[data-testid=preview]').textContent());
    assert.match(preview, new RegExp(`Would fire now for ${expectedFiring.length} of ${errorsByHost.size} groups`));
    const hits = (await page.locator('.preview-groups li.hit .mono').allTextContents()).sort();
    assert.deepEqual(hits, expectedFiring);
    assert.equal(posted().length, 0, 'a preview notifies nobody');
    await shootBothThemes(page, 'monitor-editor', page.locator('dialog'));
    await page.click('.modal-foot button:has-text("Create monitor")');

    const row = page.locator('tr[data-monitor="errors per host"]');
    await waitFor('the new monitor', () => row.count());
    assert.match((await row.textContent())!, /Not run yet/);
    await row.locator('button:has-text("Run now")').click();
    await waitFor('the firing state', async () => (await row.textContent())!.includes('Firing'));
    assert.deepEqual(
      posted()
        .map((p) => [p.state, p.group])
        .sort(),
      expectedFiring.map((g) => ['firing', g]),
    );
    const list = (await call(srv, 'GET', '/api/monitors', { token: await adminToken(srv) })) as {
      monitors: { firing: { group: string }[] }[];
    };
    assert.deepEqual(list.monitors[0].firing.map((f) => f.group).sort(), expectedFiring);

    // a second monitor, off, so the list shows more than one state
    await page.click('button:has-text("New monitor")');
    await dialog.getByLabel('Name', { exact: true }).fill('slow checkout');
    await dialog.locator('[data-testid=query-editor]').fill('duration_ms>1400 | stats p95(duration_ms) as p95_ms');
    await dialog.getByLabel('Fires when').fill('p95_ms > 1490');
    // no webhook: the editor asks once before saving a monitor that tells nobody
    await page.click('.modal-foot button:has-text("Create monitor")');
    await page.click('.modal-foot button:has-text("Create without destination")');
    const second = page.locator('tr[data-monitor="slow checkout"]');
    await waitFor('the second monitor', () => second.count());
    await second.locator('button:has-text("Run now")').click();
    await waitFor('its state', async () => /OK|Firing/.test((await second.textContent())!));
    await shootBothThemes(page, 'monitors');

    await row.locator('button:has-text("History")').click();
    const history = await waitFor('the history', async () => {
      const t = await page.locator('[data-testid=history]').textContent();
      return t && t.includes('fired') ? t : undefined;
    });
    assert.match(history, /run by hand/);
    await shootBothThemes(page, 'monitor-history', page.locator('dialog'));
    assert.deepEqual(errors, []);
  });

  it('answers a question in the Ask panel, showing each search and linking the event it cites', async () => {
    const newest = (
      (await call(srv, 'GET', '/api/search?q=level%3Derror&index=app&limit=1', { token: await adminToken(srv) })) as {
        events: EventJson[];
      }
    ).events[0];
    const id = eventId(newest);
    const perHost = [...errorsByHost].sort((a, b) => b[1] - a[1]);
    llm.play(
      { toolCalls: [{ name: 'search', arguments: { query: 'level=error', index: 'app', from: '-6h', limit: 5 } }] },
      {
        content: `The newest error is a GET of an item that failed with status ${String(newest.fields.status)} [${id}]. ${perHost[0][0]} logged the most errors in the last 6 hours.`,
      },
    );
    await page.goto(`${srv.url}/ui/search?q=level%3Derror&index=app&from=-6h`);
    await page.click('button.ask-toggle');
    await page.fill('textarea[aria-label=Question]', 'What is going wrong with the app?');
    await page.click('.ask-form button:has-text("Ask")');
    const turn = page.locator('[data-testid=ask-turns] .ask-turn').last();
    await waitFor('the answer', async () => ((await turn.locator('.ask-answer').count()) > 0 ? true : undefined));
    assert.match((await turn.locator('.ask-step').textContent())!, /search level=error \(index app, from -6h\)→ 5/);
    const cite = turn.locator('a.ask-cite');
    assert.equal(await cite.count(), 1);
    const href = (await cite.getAttribute('href'))!;
    assert.match(href, /env=default&index=app/);
    assert.ok(href.includes(encodeURIComponent(newest.time)), href);
    await shootBothThemes(page, 'ask');

    llm.play({ json: { query: 'level=error | stats count by host', explanation: 'Counts errors per host.' } });
    await page.fill('textarea[aria-label=Question]', 'errors per host');
    await page.click('.ask-form button:has-text("Write the query")');
    await waitFor('the query in the URL', async () =>
      new URL(page.url()).searchParams.get('q') === 'level=error | stats count by host' ? true : undefined,
    );
    assert.deepEqual(errors, []);
  });
});
