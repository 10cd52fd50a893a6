import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey, ingestEvents } from '../helpers/auth.js';
import { suiteServer, type TestServer } from '../helpers/server.js';

/**
 * `| collect index=…` through a real server: the search's rows become events of an index of the
 * environment it searched, written through ingest's writer (acknowledged once durable), and a
 * search of that index finds them; the answers are checked against this test's own counts of the
 * events it sent. Writing follows outputlookup's guard: admin scope, writes=allow, last pipe.
 */
const HOSTS = ['web-1', 'web-2', 'db-1'];
const T0 = Date.parse('2026-03-01T10:00:00Z');
const EVENTS = Array.from({ length: 30 }, (_, i) => ({
  _time: new Date(T0 + i * 60_000).toISOString(),
  message: `request ${i} took ${i * 3}ms`,
  host: HOSTS[i % 3],
}));
const countOf = (h: string) => EVENTS.filter((e) => e.host === h).length;

describe('collect over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const search = async (token: string, q: string, expect = 200, writes: string | null = 'allow') => {
    const params = new URLSearchParams({ q, env: 'default', limit: '1000', ...(writes === null ? {} : { writes }) });
    const res = await fetch(`${srv.url}/api/search?${params}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    assert.equal(res.status, expect, text);
    return JSON.parse(text) as {
      columns?: string[];
      rows?: unknown[][];
      events?: { time: string; message: string; host: string; sourcetype: string; fields: Record<string, unknown> }[];
      meta?: { warnings?: string[] };
      error?: { code: string; message: string };
    };
  };
  const countIn = async (index: string) =>
    (await search(admin, `index=${index} | stats count`, 200, null)).rows?.[0]?.[0] ?? 0;

  before(() => ingestEvents(srv, EVENTS));

  it('writes the rows of a table as key=value events that a search of the index finds', async () => {
    const t0 = Date.now();
    const r = await search(admin, 'index=main | stats count by host | collect index=summary');
    assert.deepEqual(
      r.rows,
      [...HOSTS].sort().map((h) => [h, countOf(h)]),
      'the rows pass through',
    );
    const back = await search(admin, 'index=summary | table _time orig_host count message sourcetype', 200, null);
    const rows = back.rows!.map(([time, host, count, message, sourcetype]) => ({
      time,
      host,
      count,
      message,
      sourcetype,
    }));
    assert.equal(rows.length, HOSTS.length);
    for (const h of HOSTS) {
      const row = rows.find((x) => x.host === h)!;
      assert.equal(Number(row.count), countOf(h));
      assert.equal(row.message, `orig_host=${h}, count=${countOf(h)}`);
      assert.equal(row.sourcetype, 'stash');
      // a row without _time is written at the time of the search
      assert.ok(Date.parse(row.time as string) >= t0 - 1000 && Date.parse(row.time as string) <= Date.now() + 1000);
    }
  });

  it("takes a row's _time as the event time and its message as the text", async () => {
    await search(admin, 'index=main | table _time host message | collect index=copy sourcetype=copied host=collector');
    const back = await search(admin, 'index=copy sourcetype=copied host=collector | table _time message', 200, null);
    const got = back.rows!.map(([t, m]) => [Date.parse(t as string), m]).sort((a, b) => Number(a[0]) - Number(b[0]));
    assert.deepEqual(
      got,
      EVENTS.map((e) => [Date.parse(e._time), e.message]),
    );
    const byHost = await search(admin, 'index=copy | stats count by orig_host', 200, null);
    assert.deepEqual(
      byHost.rows,
      [...HOSTS].sort().map((h) => [h, countOf(h)]),
    );
  });

  it('writes every matching event of an event search, beyond the answer limit', async () => {
    const params = new URLSearchParams({
      q: 'index=main host=web-1 | collect index=raw_copy',
      env: 'default',
      limit: '2',
      writes: 'allow',
    });
    const res = await fetch(`${srv.url}/api/search?${params}`, { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.status, 200, await res.text());
    assert.equal(await countIn('raw_copy'), countOf('web-1'));
    const back = await search(admin, 'index=raw_copy | table message', 200, null);
    assert.deepEqual(
      back.rows!.map(([m]) => m).sort(),
      EVENTS.filter((e) => e.host === 'web-1')
        .map((e) => e.message)
        .sort(),
    );
  });

  it('writes nothing with testmode=true, which needs no confirmation', async () => {
    const r = await search(admin, 'index=main | stats count by host | collect index=tm testmode=true', 200, null);
    assert.equal(r.rows!.length, HOSTS.length);
    assert.match(r.meta?.warnings?.join(' ') ?? '', /testmode=true, so the 3 events were not written/);
    assert.equal(await countIn('tm'), 0);
  });

  it('refuses without writes=allow, without the admin scope, before another pipe, and outside a search', async () => {
    const a = await search(admin, 'index=main | stats count by host | collect index=nope', 400, null);
    assert.match(a.error!.message, /writes events into index "nope", so it runs only when confirmed \(writes=allow\)/);
    const key = await createApiKey(srv, { scopes: ['standard'] });
    const b = await search(key, 'index=main | stats count by host | collect index=nope', 403);
    assert.equal(b.error!.code, 'insufficient_scope');
    const c = await search(admin, 'index=main | collect index=nope | stats count', 400);
    assert.match(c.error!.message, /collect: must be the last pipe of the search/);
    const d = await search(admin, 'index=main | collect index=_nope', 400);
    assert.equal(d.error!.code, 'reserved_name');
    const hist = await fetch(
      `${srv.url}/api/histogram?${new URLSearchParams({ q: 'index=main | collect index=nope', env: 'default' })}`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    assert.equal(hist.status, 400);
    assert.match(((await hist.json()) as { error: { message: string } }).error.message, /does not write events/);
    assert.equal(await countIn('nope'), 0);
  });
});
