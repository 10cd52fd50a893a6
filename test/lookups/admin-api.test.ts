import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey, createUser, login } from '../helpers/auth.js';
import { suiteServer, type TestServer } from '../helpers/server.js';

/** /api/admin/lookups against a real server on a temporary data dir (docs/lookups.md). */
const USERS = 'uid,name,team\nu1,Alice,core\nu2,Bob,\nu1,Alice again,dup\n"u,3","Carol ""CJ""",web\n';

async function send(
  srv: TestServer,
  method: string,
  path: string,
  opts: { token: string; body?: string; type?: string },
) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token}` };
  if (opts.body !== undefined) headers['content-type'] = opts.type ?? 'text/csv';
  const res = await fetch(`${srv.url}${path}`, { method, headers, body: opts.body });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined;
  return { status: res.status, text, json, headers: res.headers };
}

describe('the lookup tables admin API', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]), { SVC_LOOKUP_MAX_BYTES: '4096' });
  const put = (name: string, body: string, type?: string) =>
    send(srv, 'PUT', `/api/admin/lookups/${name}`, { token: admin, body, type });

  it('creates a table from a CSV with 201, lists it with its columns, rows, size, time and uploader', async () => {
    const r = await put('users', USERS);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(
      { ...r.json, updatedAt: undefined },
      {
        name: 'users',
        columns: ['uid', 'name', 'team'],
        rows: 4,
        bytes: Buffer.byteLength(USERS),
        updatedAt: undefined,
        updatedBy: 'admin',
      },
    );
    assert.ok(Date.now() - Date.parse(r.json.updatedAt) < 60_000);
    const list = await send(srv, 'GET', '/api/admin/lookups', { token: admin });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.json.lookups.map((l: { name: string; rows: number }) => [l.name, l.rows]),
      [['users', 4]],
    );
  });

  it('gives the CSV back byte for byte, and its first rows as JSON with ?preview=1', async () => {
    const csv = await send(srv, 'GET', '/api/admin/lookups/users', { token: admin });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.match(csv.headers.get('content-disposition')!, /filename="users\.csv"/);
    assert.equal(csv.text, USERS);
    const preview = await send(srv, 'GET', '/api/admin/lookups/users?preview=1&rows=3', { token: admin });
    assert.equal(preview.status, 200);
    assert.deepEqual(preview.json.columns, ['uid', 'name', 'team']);
    assert.deepEqual(preview.json.rows, [
      ['u1', 'Alice', 'core'],
      ['u2', 'Bob', null],
      ['u1', 'Alice again', 'dup'],
    ]);
    assert.equal(preview.json.lookup.rows, 4);
    const bad = await send(srv, 'GET', '/api/admin/lookups/users?preview=1&rows=0', { token: admin });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error.message, /^query parameter "rows" must be at least 1/);
  });

  it("replaces a table with 200, keeping the old version's files a while for searches compiled against it", async () => {
    const r = await put('users', 'uid,name\nu9,Zed\n', 'text/csv; charset=utf-8');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.columns, r.json.rows], [['uid', 'name'], 1]);
    assert.equal((await send(srv, 'GET', '/api/admin/lookups/users', { token: admin })).text, 'uid,name\nu9,Zed\n');
    // the replaced version stays a minute for searches compiled against it: two versions, four files
    const files = readdirSync(join(srv.dataDir, 'lookups', 'users'));
    assert.equal(files.length, 4, files.join(', '));
  });

  it('refuses malformed CSV with a 400 that says what and where', async () => {
    const cases: [string, RegExp][] = [
      ['', /^the CSV is empty/],
      ['\n\n', /^the CSV is empty/],
      ['a,b\n', /^the CSV has a header but no rows$/],
      ['a,b\n1,2\n3\n', /^line 3: 1 value, but the header has 2 columns$/],
      ['a,b\n1,2,3\n', /^line 2: 3 values, but the header has 2 columns$/],
      ['id,Name,name\n1,2,3\n', /^line 1: duplicate column name "name" \(columns 2 and 3/],
      ['id,,x\n1,2,3\n', /^line 1: column 2 of the header has no name/],
      ['a,b\n"open,2\n', /^line 2: a quoted value is never closed$/],
      ['a,b\nx"y,2\n', /^line 2: a stray quote/],
    ];
    for (const [body, re] of cases) {
      const r = await put('broken', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.error.code, 'invalid_input');
      assert.match(r.json.error.message, re, JSON.stringify(body));
    }
    assert.equal((await send(srv, 'GET', '/api/admin/lookups/broken', { token: admin })).status, 404);
    assert.ok(
      !existsSync(join(srv.dataDir, 'lookups', 'broken')) ||
        readdirSync(join(srv.dataDir, 'lookups', 'broken')).length === 0,
      'no file left by a refused upload',
    );
  });

  it('refuses bad names, other content types and bodies over SVC_LOOKUP_MAX_BYTES', async () => {
    const named = await put('_hidden', 'a\n1\n');
    assert.equal(named.status, 400);
    assert.equal(named.json.error.code, 'reserved_name');
    const spaced = await put('two%20words', 'a\n1\n');
    assert.equal(spaced.status, 400);
    assert.match(spaced.json.error.message, /^name: want 1-64 letters/);
    const json = await put('users', '{"a":1}', 'application/json');
    assert.equal(json.status, 400);
    assert.equal(json.json.error.code, 'unsupported_media_type');
    const big = await put('big', 'a\n' + 'x\n'.repeat(3000));
    assert.equal(big.status, 413);
    assert.equal(big.json.error.message, 'the CSV is larger than 4096 bytes (SVC_LOOKUP_MAX_BYTES)');
  });

  it('answers 404 for a table that is not there, and deletes one with 204', async () => {
    assert.equal((await send(srv, 'DELETE', '/api/admin/lookups/nosuch', { token: admin })).status, 404);
    assert.equal((await put('gone', 'k,v\n1,2\n')).status, 201);
    assert.equal((await send(srv, 'DELETE', '/api/admin/lookups/gone', { token: admin })).status, 204);
    assert.equal((await send(srv, 'GET', '/api/admin/lookups/gone', { token: admin })).status, 404);
    const names = (await send(srv, 'GET', '/api/admin/lookups', { token: admin })).json.lookups.map(
      (l: { name: string }) => l.name,
    );
    assert.deepEqual(names, ['users']);
  });

  it('is for admins only: a user session and a standard key get 403, no credentials 401', async () => {
    await createUser(srv, { username: 'lookup-reader', password: 'reader-password-1' });
    const user = await login(srv, 'lookup-reader', 'reader-password-1');
    const key = await createApiKey(srv, { scopes: ['standard'] });
    for (const token of [user, key]) {
      assert.equal((await send(srv, 'GET', '/api/admin/lookups', { token })).status, 403);
      assert.equal((await send(srv, 'PUT', '/api/admin/lookups/x', { token, body: 'a\n1\n' })).status, 403);
      assert.equal((await send(srv, 'DELETE', '/api/admin/lookups/users', { token })).status, 403);
    }
    assert.equal((await fetch(`${srv.url}/api/admin/lookups`)).status, 401);
    // the table is still there, and a user may search with it
    const r = await fetch(
      `${srv.url}/api/search?q=${encodeURIComponent('* | head 1 | eval uid="u9" | lookup users uid | table uid, name')}`,
      { headers: { authorization: `Bearer ${user}` } },
    );
    assert.equal(r.status, 200);
  });
});
