import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { call, createApiKey, createIngestToken } from '../helpers/auth.js';
import { suiteServer, type TestServer } from '../helpers/server.js';

/**
 * `| outputlookup` through a real server (server.ts wires the writer): an admin's search writes a
 * table the admin API then serves and `| inputlookup` reads; a key without the admin scope gets 403
 * and the table stays as it was (docs/lookups.md).
 */
const HOSTS = ['web-1', 'web-2', 'db-1'];
const EVENTS = Array.from({ length: 30 }, (_, i) => ({ message: `request ${i}`, host: HOSTS[i % 3] }));

describe('outputlookup over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const search = async (token: string, q: string, expect = 200) => {
    const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q, limit: '100' })}`, {
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

  before(async () => {
    const token = await createIngestToken(srv, { env: 'default' });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: EVENTS.map((e) => JSON.stringify(e)).join('\n') + '\n',
    });
    assert.equal(res.status, 200, await res.text());
  });

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
});
