import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createIngestToken } from '../helpers/auth.js';

/**
 * Admission of searches over HTTP (query/admission.ts): an export whose client stops reading holds
 * its search slot for as long as it pleases, which makes "a search is running" deterministic here.
 * Caps: 2 at once, 1 per user or key, a 3 s wait for a slot.
 */
describe('search admission over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  let key: string;
  const N = 15_000;
  const PAD = 'x'.repeat(1200);

  before(async () => {
    srv = await startTestServer({
      SVC_MAX_CONCURRENT_SEARCHES: '2',
      SVC_MAX_SEARCHES_PER_USER: '1',
      SVC_SEARCH_QUEUE_WAIT_SECS: '3',
      SVC_REQUEST_TIMEOUT_SECS: '120',
    });
    admin = await adminToken(srv);
    key = await createApiKey(srv, { scopes: ['standard'] });
    const token = await createIngestToken(srv, { env: 'default', index: 'big' });
    // ~18 MB of export: more than socket and client buffers hold, so a paused reader holds the export
    const lines = Array.from({ length: N }, (_, i) =>
      JSON.stringify({
        time: new Date(Date.UTC(2025, 0, 1) + i * 10).toISOString(),
        message: `row ${i} user=u${i % 7} ${PAD}`,
      }),
    );
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await srv.close();
  });

  /** An admin export that has sent its first bytes and whose client then reads no more. */
  function heldExport(): Promise<http.ClientRequest> {
    return new Promise((resolve, reject) => {
      const req = http.get(
        `${srv.url}/api/export?q=*&index=big&format=ndjson&max=${N}`,
        { headers: { authorization: `Bearer ${admin}` } },
        (res) => {
          assert.equal(res.statusCode, 200);
          res.once('data', () => {
            res.pause();
            resolve(req);
          });
        },
      );
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    });
  }

  const search = (bearer: string, q = '* | rex "user=(?<u>\\w+)" | stats count by u') =>
    fetch(`${srv.url}/api/search?${new URLSearchParams({ q, index: 'big' })}`, {
      headers: { authorization: `Bearer ${bearer}` },
    });

  it('answers a user past their cap with 429, Retry-After and an error naming the limit and its setting, while another key runs; the slot frees when the client leaves', async () => {
    const held = await heldExport();
    const refused = await search(admin);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '3');
    const body = (await refused.json()) as { error: { code: string; message: string; maxPerUser: number } };
    assert.equal(body.error.code, 'too_many_searches');
    assert.match(
      body.error.message,
      /no search slot freed within 3 s.*1 per user or key \(SVC_MAX_SEARCHES_PER_USER\)/,
    );
    assert.equal(body.error.maxPerUser, 1);

    const other = await search(key);
    assert.equal(other.status, 200, await other.clone().text());
    assert.deepEqual(((await other.json()) as { rows: unknown[][] }).rows.length, 7);

    // the client leaves: its export is interrupted, and the same user's next search gets the slot
    // (it waits in the queue for as long as the cancellation takes, up to the 3 s bound)
    held.destroy();
    const next = await search(admin);
    assert.equal(next.status, 200, await next.clone().text());
    const stopped = await searchSelfLog(srv, 'search_stopped reason=request_cancelled', '_svclogs');
    assert.equal(stopped.events.length, 1, JSON.stringify(stopped));
    assert.equal(stopped.events[0].fields.query, '*');
  });

  it('answers a search over the overall cap with 429 while the caps are full of other principals', async () => {
    const held = await heldExport();
    const k2 = await createApiKey(srv, { scopes: ['standard'] });
    const k3 = await createApiKey(srv, { scopes: ['standard'] });
    // k2 runs a slow-to-finish export too: both slots are taken, k3's search waits 3 s and is refused
    const k2Held = await new Promise<http.ClientRequest>((resolve) => {
      const req = http.get(
        `${srv.url}/api/export?q=*&index=big&format=ndjson&max=${N}`,
        { headers: { authorization: `Bearer ${k2}` } },
        (res) => res.once('data', () => (res.pause(), resolve(req))),
      );
      req.on('error', () => {});
    });
    const refused = await search(k3);
    assert.equal(refused.status, 429);
    assert.match(
      ((await refused.json()) as { error: { message: string } }).error.message,
      /at most 2 searches at once \(SVC_MAX_CONCURRENT_SEARCHES\)/,
    );
    held.destroy();
    k2Held.destroy();
    await sleep(50);
    assert.equal((await search(k3)).status, 200);
  });
});
