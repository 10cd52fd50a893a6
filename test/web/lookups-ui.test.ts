import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkipReason, waitFor, shootBothThemes } from './browser.js';
import { startUiSession, type UiSession } from './fixture.js';

const skip = browserSkipReason();
if (skip) console.log(`# web UI lookups tests ${skip}`);

/** The hosts of the app events (web-1 … web-6) with an owning team; web-6 has none. */
const HOSTS_CSV =
  'host,team,region,oncall,tier\n' +
  'web-1,checkout,eu-west-1,alice@example.com,gold\n' +
  'web-2,checkout,eu-west-1,bob@example.com,gold\n' +
  'web-3,search,us-east-1,carol@example.com,silver\n' +
  'web-4,search,us-east-1,,silver\n' +
  'web-5,platform,ap-south-1,dan@example.com,bronze\n';

async function uploadThroughDialog(
  page: Page,
  file: { name: string; text: string },
  opts: { button?: string; name?: string } = {},
): Promise<void> {
  await page.click(opts.button ?? 'button:has-text("Upload CSV")');
  await page.setInputFiles('input[aria-label="CSV file"]', {
    name: file.name,
    mimeType: 'text/csv',
    buffer: Buffer.from(file.text),
  });
  if (opts.name !== undefined) await page.fill('input[aria-label="Table name"]', opts.name);
  await page.click('.modal-foot button[type=submit]');
}

describe('the lookups admin page in Chromium', { skip }, () => {
  let session: UiSession;
  let page: Page;
  const base = () => session.ui.srv.url;
  const search = async (q: string) => {
    const res = await fetch(`${base()}/api/search?${new URLSearchParams({ q, index: 'app', from: '-24h' })}`, {
      headers: { authorization: `Bearer ${session.ui.admin}` },
    });
    return (await res.json()) as { rows?: unknown[][]; error?: { message: string } };
  };

  before(async () => {
    session = await startUiSession();
    page = session.page;
  });
  after(async () => session?.close());

  it('starts empty, with the syntax to use a table once there is one', async () => {
    await page.goto(`${base()}/ui/admin/lookups`);
    const empty = await waitFor('the empty state', () => page.locator('.lookup-empty').textContent());
    assert.match(empty, /No lookup tables yet/);
    assert.match(empty, /\* \| lookup users uid as user_id output name, team/);
  });

  it('uploads a CSV file, names the table after it, and lists its columns and rows', async () => {
    await uploadThroughDialog(page, { name: 'hosts.csv', text: HOSTS_CSV });
    const row = page.locator('tr[data-lookup="hosts"]');
    await waitFor('the new table in the list', () => row.count());
    const text = (await row.textContent())!;
    for (const part of [
      'host',
      'team',
      'region',
      'oncall',
      'tier',
      '5',
      '* | lookup hosts host output team, region, oncall, tier',
    ])
      assert.ok(text.includes(part), `${part} in ${text}`);
    // and searches use it at once
    const r = await search('* | lookup hosts host output team | stats count by team | sort team');
    assert.deepEqual(
      r.rows?.map((x) => x[0]),
      ['checkout', 'platform', 'search'],
    );
  });

  it('shows what is wrong with a malformed CSV in the dialog, and keeps it open', async () => {
    await uploadThroughDialog(page, { name: 'broken.csv', text: 'a,b\n1,2\n3\n' });
    const err = await waitFor('the error', () => page.locator('dialog .alert-error').textContent());
    assert.equal(err, 'line 3: 1 value, but the header has 2 columns');
    await page.click('.modal-foot button:has-text("Cancel")');
    assert.equal(await page.locator('tr[data-lookup="broken"]').count(), 0);
  });

  it('previews the first rows, empty cells shown as empty', async () => {
    await page.click('tr[data-lookup="hosts"] button:has-text("Preview")');
    const table = page.locator('[data-testid=lookup-preview]');
    await waitFor('the preview rows', async () => (await table.locator('tbody tr').count()) === 5);
    assert.deepEqual(await table.locator('thead th').allTextContents(), [
      '#',
      'host',
      'team',
      'region',
      'oncall',
      'tier',
    ]);
    assert.deepEqual(await table.locator('tbody tr').nth(3).locator('td').allTextContents(), [
      '4',
      'web-4',
      'search',
      'us-east-1',
      '—',
      'silver',
    ]);
    await shootBothThemes(page, 'lookup-preview', page.locator('dialog'));
    await page.click('.modal-foot button:has-text("Close")');
  });

  it('replaces a table with a new file, and searches see the new rows', async () => {
    await uploadThroughDialog(
      page,
      { name: 'hosts-v2.csv', text: HOSTS_CSV + 'web-6,data,eu-west-1,erin@example.com,gold\n' },
      { button: 'button[aria-label="Replace hosts"]' },
    );
    await waitFor(
      'six rows listed',
      async () => (await page.locator('tr[data-lookup="hosts"] td.num').first().textContent()) === '6',
    );
    const r = await search('* | lookup hosts host output team | stats count by team | sort team');
    assert.deepEqual(
      r.rows?.map((x) => x[0]),
      ['checkout', 'data', 'platform', 'search'],
    );
  });

  it('renders without script errors, and saves the screenshot for the docs', async () => {
    await uploadThroughDialog(page, {
      name: 'http-status.csv',
      text: 'status,reason,class\n200,OK,success\n404,Not Found,client error\n500,Internal Server Error,server error\n',
    });
    await waitFor('the second table', () => page.locator('tr[data-lookup="http-status"]').count());
    await waitFor('the toasts gone', async () => (await page.locator('.toast').count()) === 0, 10_000);
    await shootBothThemes(page, 'lookups');
    assert.deepEqual(session.errors, []);
  });

  it('deletes a table after asking, and searches then say it is unknown', async () => {
    await page.click('button[aria-label="Delete http-status"]');
    await page.click('dialog button:has-text("Delete table")');
    await waitFor('the row gone', async () => (await page.locator('tr[data-lookup="http-status"]').count()) === 0);
    const r = await search('* | lookup http-status status');
    assert.match(r.error?.message ?? '', /unknown lookup table "http-status"/);
  });

  describe('a search that writes, opened from a link', () => {
    const csvStatus = async (name: string) =>
      (
        await fetch(`${base()}/api/admin/lookups/${name}`, {
          headers: { authorization: `Bearer ${session.ui.admin}` },
        })
      ).status;
    const Q = '* | stats count by host | outputlookup link_hosts';

    it('does not write the table, and asks the user to confirm with a button naming it', async () => {
      await page.goto(
        `${base()}/ui/search?${new URLSearchParams({ q: Q, env: 'default', index: 'app', from: '-24h' })}`,
      );
      const notice = page.locator('[data-testid=confirm-write]');
      const text = await waitFor('the confirm notice', () => notice.textContent());
      assert.match(text, /this search writes lookup table "link_hosts", so it runs only when confirmed/);
      assert.equal(await notice.locator('button').textContent(), 'Run and write lookup table link_hosts');
      assert.equal(await page.locator('[data-testid=search-error]').count(), 0, 'shown once, as the notice');
      assert.equal(await csvStatus('link_hosts'), 404, 'opening the link wrote nothing');
      await shootBothThemes(page, 'confirm-write');
    });

    it('writes the table when the user clicks the button', async () => {
      await page.click('[data-testid=confirm-write-run]');
      await waitFor('the table of the search', async () => (await page.locator('table tbody tr').count()) > 0);
      assert.equal(await page.locator('[data-testid=confirm-write]').count(), 0);
      assert.equal(await csvStatus('link_hosts'), 200);
      const back = await search('| inputlookup link_hosts | stats count');
      assert.deepEqual(back.rows, [[6]], 'one row per host of the app events');
    });

    it('writes when the user presses Search in the editor, but not again on back and forward', async () => {
      await page.click('.cm-content');
      await page.keyboard.press('Control+a');
      await page.keyboard.type('* | stats count by host | where host="web-1" | outputlookup typed_hosts');
      await page.keyboard.press('Escape');
      await page.click('[data-testid=run]');
      await waitFor('the table written', async () => (await csvStatus('typed_hosts')) === 200);
      await page.goBack();
      await waitFor('the notice again', () => page.locator('[data-testid=confirm-write]').count());
      await page.goForward();
      const text = await waitFor('the notice for the typed search', () =>
        page.locator('[data-testid=confirm-write]').textContent(),
      );
      assert.match(text, /writes lookup table "typed_hosts"/);
      assert.deepEqual(session.errors, []);
    });
  });
});
