import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createApiKey, ingestEvents } from '../helpers/auth.js';
import { suiteServer, type TestServer } from '../helpers/server.js';

/**
 * `| outputlookup` through a real server (server.ts wires the writer): an admin's search writes a
 * table the admin API then serves and `| inputlookup` reads; a key without the admin scope gets 403
 * and the table stays as it was (docs/lookups.md). A search that writes runs only with `writes=allow`
 * on /api/search: without it (a link the UI opens, a tool, a monitor) it is a 400 and nothing is written.
 */
const HOSTS = ['web-1', 'web-2', 'db-1'];
const EVENTS = Array.from({ length: 30 }, (_, i) => ({ message: `request ${i}`, host: HOSTS[i % 3] }));

describe('outputlookup over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const search = async (token: string, q: string, expect = 200, writes: string | null = 'allow') => {
    const params = new URLSearchParams({ q, limit: '100', ...(writes === null ? {} : { writes }) });
    const res = await fetch(`${srv.url}/api/search?${params}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    assert.equal(res.status, expect, text);
    return JSON.parse(text) as { columns?: string[]; rows?: unknown[][]; error?: { code: string; message: string } };
  };
  const csvOf = async (name: string) => {
    const res = await fetch(`${srv.url}/api/admin/lookups/${name}`, { headers: { authorization: `Bearer ${admin}` } });
    return { status: res.status, text: await res.text() };
  };

  before(() => ingestEvents(srv, EVENTS));

  it("writes an admin's search table as a lookup table the admin API serves and inputlookup reads", async () => {
    const r = await search(admin, '* | stats count by host | outputlookup hosts_seen');
    assert.deepEqual(r.rows, [
      ['db-1', 10],
      ['web-1', 10],
      ['web-2', 10],
    ]);
    const csv = await csvOf('hosts_seen');
    assert.equal(csv.status, 200);
    assert.equal(csv.text, 'host,count\ndb-1,10\nweb-1,10\nweb-2,10\n');
    const list = (await call(srv, 'GET', '/api/admin/lookups', { token: admin })) as {
      lookups: { name: string; updatedBy: string }[];
    };
    assert.equal(list.lookups.find((l) => l.name === 'hosts_seen')?.updatedBy, 'admin');
    const key = await createApiKey(srv, { scopes: ['standard'] });
    const back = await search(key, '| inputlookup hosts_seen where host=web*');
    assert.deepEqual(back.rows, [
      ['web-1', '10'],
      ['web-2', '10'],
    ]);
  });

  it('answers 403 insufficient_scope to a key without the admin scope, and leaves the table as it was', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'] });
    const r = await search(key, '* | stats count by host | where host="db-1" | outputlookup hosts_seen', 403);
    assert.equal(r.error?.code, 'insufficient_scope');
    assert.equal((await csvOf('hosts_seen')).text, 'host,count\ndb-1,10\nweb-1,10\nweb-2,10\n');
    const adminKey = await createApiKey(srv, { scopes: ['admin'] });
    await search(adminKey, '* | stats count by host | where host="db-1" | outputlookup hosts_seen');
    assert.equal((await csvOf('hosts_seen')).text, 'host,count\ndb-1,10\n');
  });

  describe('key_field= updates the table by its key column', () => {
    const count = (h: string) => EVENTS.filter((e) => e.host === h).length;
    const line = (cells: (string | number)[]) => cells.join(',');

    it('replaces the rows whose key the search gives, adds its other keys and keeps the rest', async () => {
      await search(
        admin,
        '* | stats count by host | where host!="web-2" | eval key=host, seen="first" | outputlookup keyed',
      );
      const first = ['db-1', 'web-1'].map((h) => line([h, count(h), h, 'first']));
      assert.equal((await csvOf('keyed')).text, ['host,count,key,seen', ...first, ''].join('\n'));
      const r = await search(
        admin,
        '* | stats count by host | where host!="db-1" | eval key=host, seen="second" | table key, count, seen | outputlookup keyed key_field=key',
      );
      assert.deepEqual(
        r.rows,
        ['web-1', 'web-2'].map((h) => [h, count(h), 'second']),
        'the rows pass through unchanged',
      );
      // db-1 is kept as it was; web-1 is replaced in its place (its host cell is empty: the new row
      // has no host); web-2 is new and comes last
      assert.equal(
        (await csvOf('keyed')).text,
        [
          'host,count,key,seen',
          line(['db-1', count('db-1'), 'db-1', 'first']),
          line(['', count('web-1'), 'web-1', 'second']),
          line(['', count('web-2'), 'web-2', 'second']),
          '',
        ].join('\n'),
      );
    });

    it('creates the table with one row a key, the last row of a key winning', async () => {
      const r = await search(
        admin,
        '* | table host, message | rename host as key | outputlookup key_field=key keyed_new',
      );
      const [k, m] = ['key', 'message'].map((c) => r.columns!.indexOf(c));
      const last = new Map<string, string[]>();
      for (const row of r.rows as string[][]) last.set(row[k], row);
      const want = [...last.values()].map((row) => line(row));
      assert.equal(last.size, 3);
      assert.ok(m >= 0);
      assert.equal((await csvOf('keyed_new')).text, [r.columns!.join(','), ...want, ''].join('\n'));
    });

    it('refuses a key the rows do not have, or the table does not have, and leaves the table as it was', async () => {
      const was = (await csvOf('keyed')).text;
      const a = await search(admin, '* | stats count by host | outputlookup key_field=nope keyed', 400);
      assert.match(a.error?.message ?? '', /key_field "nope" is not a column of the search's rows/);
      const b = await search(
        admin,
        '* | stats count by host | eval other=host | outputlookup key_field=other keyed',
        400,
      );
      assert.match(b.error?.message ?? '', /lookup table "keyed" has no column "other" to update by/);
      assert.equal((await csvOf('keyed')).text, was);
    });
  });

  describe('a search that writes runs only when the caller confirms it (writes=allow)', () => {
    const Q = '* | stats count by host | where host="web-1" | outputlookup hosts_seen';
    const before = async () => (await csvOf('hosts_seen')).text;

    it('refuses it without writes=allow with a 400 naming the table, and leaves the table as it was', async () => {
      const was = await before();
      const r = await search(admin, Q, 400, null);
      assert.equal(r.error?.code, 'invalid_query');
      assert.match(
        r.error?.message ?? '',
        /writes lookup table "hosts_seen", so it runs only when confirmed \(writes=allow\)/,
      );
      assert.equal((r.error as { table?: string }).table, 'hosts_seen', 'the UI names the table from the answer');
      assert.equal(await before(), was);
      const post = await fetch(`${srv.url}/api/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q: Q }),
      });
      assert.equal(post.status, 400, await post.text());
      assert.equal(await before(), was);
    });

    it('writes with writes=allow, in the query string or in a POST body', async () => {
      await search(admin, Q);
      assert.equal(await before(), 'host,count\nweb-1,10\n');
      const post = await fetch(`${srv.url}/api/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q: Q.replace('web-1', 'web-2'), writes: 'allow' }),
      });
      assert.equal(post.status, 200, await post.text());
      assert.equal(await before(), 'host,count\nweb-2,10\n');
    });

    it('refuses writes with any other value than allow', async () => {
      const r = await search(admin, Q, 400, 'yes');
      assert.equal(r.error?.code, 'invalid_input');
      assert.match(r.error?.message ?? '', /writes.*must be "allow"/);
    });

    it('refuses the confirmation and the write on export, histogram and fields', async () => {
      const was = await before();
      for (const path of ['/api/export?format=csv&', '/api/histogram?', '/api/fields?']) {
        for (const writes of [{ writes: 'allow' }, {}] as Record<string, string>[]) {
          const res = await fetch(`${srv.url}${path}${new URLSearchParams({ q: Q, ...writes })}`, {
            headers: { authorization: `Bearer ${admin}` },
          });
          const body = (await res.json()) as { error: { code: string; message: string } };
          assert.equal(res.status, 400, `${path} ${JSON.stringify(writes)}`);
          assert.equal(body.error.code, 'invalid_query');
          assert.match(
            body.error.message,
            writes.writes ? /writes=allow is taken only by \/api\/search/ : /does not write lookup table "hosts_seen"/,
          );
        }
      }
      assert.equal(await before(), was);
    });

    it('refuses it from the MCP tools, which cannot confirm, and leaves the table as it was', async () => {
      const was = await before();
      const client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', srv.url), {
          requestInit: { headers: { Authorization: `Bearer ${admin}` } },
        }),
      );
      try {
        await assert.rejects(
          client.callTool({ name: 'search', arguments: { query: Q, writes: 'allow' } }),
          /unknown argument "writes"/,
        );
        const res = await client.callTool({ name: 'search', arguments: { query: Q } });
        assert.equal(res.isError, true);
        const text = (res.content as { text: string }[]).map((c) => c.text).join('\n');
        assert.match(text, /writes lookup table "hosts_seen", so it runs only when confirmed/);
      } finally {
        await client.close();
      }
      assert.equal(await before(), was);
    });

    it('refuses a monitor whose query writes', async () => {
      const r = (await call(srv, 'POST', '/api/monitors', {
        token: admin,
        expect: 400,
        body: {
          name: 'writer',
          query: Q,
          env: 'default',
          every: '5m',
          condition: { threshold: 'count > 0' },
          destinations: [{ webhook: 'http://127.0.0.1:9/hook' }],
        },
      })) as { error: { code: string; message: string } };
      assert.equal(r.error.code, 'invalid_query');
      assert.match(r.error.message, /query: outputlookup: a monitor does not write lookup table "hosts_seen"/);
    });
  });
});
