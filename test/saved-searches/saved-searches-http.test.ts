import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  adminToken,
  call,
  createApiKey,
  createEnv,
  createIngestToken,
  createUser,
  login,
  send,
} from '../helpers/auth.js';

/**
 * Saved searches end to end: a real server, real OpenSSH lines ingested into two environments (the
 * test counts what it sent), users with and without access to each, and a restart on the same data dir.
 */

interface Saved {
  id: string;
  name: string;
  version: number;
  shared: boolean;
  mine: boolean;
  canEdit: boolean;
  env: string;
  index?: string;
  query: string;
  description: string;
  range: { from: string; to: string };
  view: Record<string, unknown>;
  owner: { kind: string; id: string; name: string };
  lastRunAt: string | null;
  lastUsedAt: string;
}
interface Run {
  events: { env: string; message: string }[];
  columns?: string[];
  rows?: unknown[][];
  meta: { matched: number };
  savedSearch: { id: string; name: string; version: number };
  range: { from: string; to: string };
  envs: string[];
}
interface ErrorBody {
  error: { code: string; message: string; field?: string; position?: number; currentVersion?: number };
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SSH_LOG = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real', 'loghub/OpenSSH/OpenSSH_2k.log');

/** The real OpenSSH lines when the data set is there, else 2000 lines of the same shape. */
function sourceLines(): string[] {
  if (existsSync(SSH_LOG))
    return readFileSync(SSH_LOG, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
  console.log(`# real OpenSSH log not found at ${SSH_LOG}: skipped the real lines, using generated ones`);
  return Array.from({ length: 2000 }, (_, i) =>
    i % 3 === 0
      ? `sshd[${i}]: Failed password for root from 10.0.0.${i % 250} port ${40000 + i} ssh2`
      : `sshd[${i}]: Accepted publickey for deploy`,
  );
}

/** NDJSON of `lines` ending at `atMs`, 10 ms apart, and how many hold "Failed password" (the test's own count). */
function eventsOf(lines: string[], atMs: number): { ndjson: string; failed: number } {
  const failed = lines.filter((l) => /failed password/i.test(l)).length;
  const ndjson = lines
    .map((message, i) => JSON.stringify({ time: new Date(atMs - i * 10).toISOString(), host: 'LabSZ', message }))
    .join('\n');
  return { ndjson: ndjson + '\n', failed };
}

describe('saved searches over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  /** May read every env. */
  let alice: string;
  /** May read prod only. */
  let bob: string;
  const failed = { default: 0, prod: 0, old: 0 };
  const oldAt = Date.now() - 48 * 3_600_000;

  const ingest = async (env: string, ndjson: string) => {
    const token = await createIngestToken(srv, { env });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: ndjson,
    });
    assert.equal(res.status, 200, await res.text());
  };

  before(async () => {
    srv = await startTestServer({}, { keepData: true });
    admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    // the first 1200 lines into default, the rest into prod, and 100 of them again two days ago
    const lines = sourceLines();
    const d = eventsOf(lines.slice(0, 1200), Date.now() - 60_000);
    const p = eventsOf(lines.slice(1200), Date.now() - 60_000);
    const old = eventsOf(lines.slice(0, 100), oldAt);
    [failed.default, failed.prod, failed.old] = [d.failed, p.failed, old.failed];
    assert.ok(failed.default > 0 && failed.prod > 0 && failed.old > 0, JSON.stringify(failed));
    await ingest('default', d.ndjson);
    await ingest('prod', p.ndjson);
    await ingest('default', old.ndjson);
    await createUser(srv, { username: 'alice', password: 'alice-password-1' });
    await createUser(srv, { username: 'bob', password: 'bob-password-12', allow: { envs: ['prod'] } });
    alice = await login(srv, 'alice', 'alice-password-1');
    bob = await login(srv, 'bob', 'bob-password-12');
  });
  after(async () => {
    await srv?.close();
    if (srv) rmSync(srv.dataDir, { recursive: true, force: true });
  });

  const create = (body: Record<string, unknown>, token = alice) =>
    call(srv, 'POST', '/api/saved-searches', { token, body, expect: 201 }) as Promise<Saved>;
  const list = async (token: string, qs = '') =>
    ((await call(srv, 'GET', `/api/saved-searches${qs}`, { token })) as { savedSearches: Saved[] }).savedSearches;
  const run = (id: string, token: string, body?: Record<string, unknown>) =>
    call(srv, 'POST', `/api/saved-searches/${id}/run`, { token, body, expect: 200 }) as Promise<Run>;
  const refused = (method: string, path: string, token: string, body?: unknown) =>
    send<ErrorBody>(srv, method, path, token, body);

  it('creates, gets, renames with the version read, and deletes a saved search', async () => {
    const s = await create({
      name: 'ssh failures',
      description: 'failed logins',
      query: 'Failed password',
      env: 'default',
      range: { from: '-24h', to: 'now' },
      view: { type: 'chart', chart: 'column', stacked: true },
    });
    assert.match(s.id, /^ss_/);
    assert.equal(s.version, 1);
    assert.equal(s.shared, false);
    assert.equal(s.owner.name, 'alice');
    assert.deepEqual(s.view, { type: 'chart', chart: 'column', stacked: true });
    assert.equal(s.lastRunAt, null);
    assert.deepEqual(await call(srv, 'GET', `/api/saved-searches/${s.id}`, { token: alice }), s);

    const renamed = (await call(srv, 'PATCH', `/api/saved-searches/${s.id}`, {
      token: alice,
      body: { version: 1, name: 'SSH failures', view: { type: 'table' } },
    })) as Saved;
    assert.equal(renamed.name, 'SSH failures');
    assert.equal(renamed.version, 2);
    assert.deepEqual(renamed.view, { type: 'table' });
    assert.equal(renamed.query, 'Failed password', 'what the patch does not name stays');

    await call(srv, 'DELETE', `/api/saved-searches/${s.id}?version=2`, { token: alice, expect: 204 });
    assert.equal((await refused('GET', `/api/saved-searches/${s.id}`, alice)).status, 404);
  });

  it('refuses a stale edit with 409 version_conflict naming the current version, and loses neither edit', async () => {
    const s = await create({ name: 'two editors', query: 'sshd' });
    await call(srv, 'PATCH', `/api/saved-searches/${s.id}`, {
      token: alice,
      body: { version: 1, description: 'first' },
    });
    const second = await refused('PATCH', `/api/saved-searches/${s.id}`, alice, { version: 1, query: 'Accepted' });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'version_conflict');
    assert.equal(second.body.error.currentVersion, 2);
    assert.match(second.body.error.message, /now version 2/);
    const stale = await refused('DELETE', `/api/saved-searches/${s.id}?version=1`, alice);
    assert.equal(stale.status, 409);
    const now = (await call(srv, 'GET', `/api/saved-searches/${s.id}`, { token: alice })) as Saved;
    assert.equal(now.description, 'first');
    assert.equal(now.query, 'sshd');
    const missing = await refused('PATCH', `/api/saved-searches/${s.id}`, alice, { name: 'no version' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.field, 'version');
  });

  it('shows a shared one to others read-only (403 on change), hides a private one (404), and lets an admin edit', async () => {
    const shared = await create({ name: 'shared by alice', query: 'sshd', env: 'prod', shared: true });
    const secret = await create({ name: 'private to alice', query: 'sshd', env: 'prod' });
    const seen = await list(bob);
    assert.ok(seen.some((s) => s.id === shared.id && !s.mine && !s.canEdit));
    assert.ok(!seen.some((s) => s.id === secret.id));
    for (const [method, path, body] of [
      ['PATCH', `/api/saved-searches/${shared.id}`, { version: 1, name: 'taken over' }],
      ['DELETE', `/api/saved-searches/${shared.id}`, undefined],
    ] as const) {
      const r = await refused(method, path, bob, body);
      assert.equal(r.status, 403, `${method} of a shared one`);
      assert.equal(r.body.error.code, 'access_denied');
    }
    for (const [method, path] of [
      ['GET', `/api/saved-searches/${secret.id}`],
      ['DELETE', `/api/saved-searches/${secret.id}`],
      ['POST', `/api/saved-searches/${secret.id}/run`],
      ['POST', `/api/saved-searches/${secret.id}/duplicate`],
    ] as const)
      assert.equal((await refused(method, path, bob)).status, 404, `${method} ${path} of a private one`);
    // an admin may change anyone's (and sees private ones only when asking for all)
    assert.ok(!(await list(admin)).some((s) => s.id === secret.id));
    assert.ok((await list(admin, '?all=true')).some((s) => s.id === secret.id));
    assert.equal((await refused('GET', '/api/saved-searches?all=true', bob)).status, 403);
    const edited = (await call(srv, 'PATCH', `/api/saved-searches/${secret.id}`, {
      token: admin,
      body: { version: 1, description: 'reviewed by admin' },
    })) as Saved;
    assert.equal(edited.owner.name, 'alice', 'the owner stays');
    assert.equal(edited.canEdit, true);
    await call(srv, 'DELETE', `/api/saved-searches/${shared.id}`, { token: admin, expect: 204 });
  });

  it("runs an admin's shared search over every env as a restricted user: only the rows of their env", async () => {
    const s = await create(
      { name: 'failed logins everywhere', query: '"Failed password" | stats count', env: '*', shared: true },
      admin,
    );
    const asAdmin = await run(s.id, admin);
    assert.deepEqual(asAdmin.rows, [[failed.default + failed.prod]]);
    assert.deepEqual(asAdmin.envs.sort(), ['default', 'prod']);
    const asBob = await run(s.id, bob);
    assert.deepEqual(asBob.rows, [[failed.prod]], 'bob may read prod only');
    assert.deepEqual(asBob.envs, ['prod']);
    // the events themselves: none of another env
    const events = await create(
      { name: 'events everywhere', query: '"Failed password"', env: '*', shared: true },
      admin,
    );
    const r = await run(events.id, bob, { limit: 1000 });
    assert.equal(r.meta.matched, failed.prod);
    assert.ok(r.events.every((e) => e.env === 'prod'));
    // a saved search naming an env the caller may not read is refused, as GET /api/search refuses it
    const named = await create({ name: 'default only', query: 'sshd', env: 'default', shared: true }, admin);
    const denied = await refused('POST', `/api/saved-searches/${named.id}/run`, bob);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'access_denied');
  });

  it('runs with the saved range unless the body overrides it, and records the run', async () => {
    const s = await create({ name: 'recent failures', query: '"Failed password"', env: 'default' });
    const recent = await run(s.id, alice, { limit: 1000 });
    assert.equal(recent.meta.matched, failed.default, 'the saved -15m range leaves out the events of two days ago');
    assert.deepEqual(recent.range, { from: '-15m', to: 'now' });
    const from = new Date(oldAt - 3_600_000).toISOString();
    const to = new Date(oldAt + 3_600_000).toISOString();
    const old = await run(s.id, alice, { from, to, limit: 1000 });
    assert.equal(old.meta.matched, failed.old);
    assert.deepEqual(old.range, { from, to });
    const after = (await call(srv, 'GET', `/api/saved-searches/${s.id}`, { token: alice })) as Saved;
    assert.ok(after.lastRunAt && after.lastRunAt >= s.lastUsedAt);
    assert.equal(after.lastUsedAt, after.lastRunAt);
    assert.equal(after.version, 1, 'a run is not an edit');
    assert.equal((await list(alice))[0].id, s.id, 'the list sorts the most recently used first');
  });

  it('records a search the UI runs from a saved search (saved=<id>) as its run; opening it, or an edited query, is none', async () => {
    const s = await create({ name: 'ui failures', query: '"Failed password"', env: 'default' });
    const read = async () => (await call(srv, 'GET', `/api/saved-searches/${s.id}`, { token: alice })) as Saved;
    const search = async (q: string) =>
      (await call(srv, 'GET', `/api/search?${new URLSearchParams({ q, env: 'default', saved: s.id, limit: '1' })}`, {
        token: alice,
      })) as { meta: { matched: number } };
    const opened = await read();
    assert.equal(opened.lastRunAt, null, 'reading it (opening it in the UI) is not a run');
    assert.equal(opened.lastUsedAt, s.lastUsedAt);
    await search('"Failed password" host=LabSZ');
    assert.equal((await read()).lastRunAt, null, 'an edited query is another search');
    // another user naming a private saved search they cannot read records nothing, and learns nothing
    await call(srv, 'GET', `/api/search?${new URLSearchParams({ q: s.query, env: 'prod', saved: s.id })}`, {
      token: bob,
    });
    assert.equal((await read()).lastRunAt, null);
    const answer = await search('"Failed password"');
    const plain = (await call(
      srv,
      'GET',
      `/api/search?${new URLSearchParams({ q: s.query, env: 'default', limit: '1' })}`,
      {
        token: alice,
      },
    )) as { meta: { matched: number } };
    assert.ok(answer.meta.matched > 0);
    assert.equal(answer.meta.matched, plain.meta.matched, 'the search itself answers as without saved=');
    const ran = await read();
    assert.ok(ran.lastRunAt && ran.lastRunAt >= s.lastUsedAt);
    assert.equal(ran.lastUsedAt, ran.lastRunAt);
    assert.equal(ran.version, 1, 'a run is not an edit');
  });

  it('duplicates a shared search into a private copy of the caller, named "(copy)"', async () => {
    const src = await create({ name: 'prod failures', query: '"Failed password"', env: 'prod', shared: true }, admin);
    const copy = (await call(srv, 'POST', `/api/saved-searches/${src.id}/duplicate`, { token: bob })) as Saved;
    assert.equal(copy.name, 'prod failures (copy)');
    assert.equal(copy.owner.name, 'bob');
    assert.equal(copy.shared, false);
    assert.equal(copy.query, src.query);
    assert.notEqual(copy.id, src.id);
    const again = (await call(srv, 'POST', `/api/saved-searches/${src.id}/duplicate`, { token: bob })) as Saved;
    assert.equal(again.name, 'prod failures (copy 2)');
    const named = (await call(srv, 'POST', `/api/saved-searches/${src.id}/duplicate`, {
      token: bob,
      body: { name: 'mine now' },
    })) as Saved;
    assert.equal(named.name, 'mine now');
    const edited = (await call(srv, 'PATCH', `/api/saved-searches/${named.id}`, {
      token: bob,
      body: { version: 1, query: 'Accepted' },
    })) as Saved;
    assert.equal(edited.query, 'Accepted');
  });

  it('filters the list by name and owner', async () => {
    await create({ name: 'Zebra hunt', query: 'zebra' });
    assert.deepEqual(
      (await list(alice, '?q=zebra')).map((s) => s.name),
      ['Zebra hunt'],
    );
    const byAdmin = await list(bob, '?owner=admin');
    assert.ok(byAdmin.length > 0 && byAdmin.every((s) => s.owner.name === 'admin'));
  });

  describe('refuses bad input with 400 naming the field', () => {
    const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
      ['a query that does not parse', { name: 'bad', query: 'status=500 | stats' }, 400, 'query', /^query: /],
      ['a query that writes', { name: 'w', query: '* | outputlookup t' }, 400, 'query', /never|does not write/],
      ['an empty name', { name: ' ', query: 'x' }, 400, 'name', /must not be empty/],
      ['a name too long', { name: 'n'.repeat(201), query: 'x' }, 400, 'name', /at most 200/],
      [
        'a range that does not parse',
        { name: 'r', query: 'x', range: { from: 'yesterday', to: 'now' } },
        400,
        'range.from',
        /range\.from/,
      ],
      [
        'a range ending before it starts',
        { name: 'r2', query: 'x', range: { from: 'now', to: '-1h' } },
        400,
        'range.from',
        /before/,
      ],
      ['a chart without its type', { name: 'c', query: 'x', view: { type: 'chart' } }, 400, 'view', /chart/],
      [
        'an unknown chart type',
        { name: 'c2', query: 'x', view: { type: 'chart', chart: 'radar' } },
        400,
        'view.chart',
        /want one of/,
      ],
      ['an unknown env', { name: 'e', query: 'x', env: 'nowhere' }, 400, 'env', /unknown environment/],
      ['an unknown field', { name: 'u', query: 'x', owner: 'someone' }, 400, 'owner', /owner/],
    ];
    for (const [what, body, status, field, message] of cases) {
      it(what, async () => {
        const r = await refused('POST', '/api/saved-searches', alice, body);
        assert.equal(r.status, status, JSON.stringify(r.body));
        assert.equal(r.body.error.field, field, JSON.stringify(r.body));
        assert.match(r.body.error.message, message);
      });
    }

    it('says where in the query the parser stopped', async () => {
      const r = await refused('POST', '/api/saved-searches', alice, { name: 'pos', query: 'error | bogus x' });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'invalid_query');
      assert.equal(typeof r.body.error.position, 'number', JSON.stringify(r.body));
    });

    it('refuses an env the creator may not read with 403, and a name already taken with 409', async () => {
      const r = await refused('POST', '/api/saved-searches', bob, { name: 'peek', query: 'x', env: 'default' });
      assert.equal(r.status, 403);
      assert.equal(r.body.error.code, 'access_denied');
      await create({ name: 'Taken', query: 'x' });
      const dup = await refused('POST', '/api/saved-searches', alice, { name: 'taken', query: 'y' });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.error.field, 'name');
      // another owner may use the same name
      await create({ name: 'Taken', query: 'x', env: 'prod' }, bob);
    });
  });

  it('takes Standard API keys as search does, and refuses ingest tokens and MCP-only keys', async () => {
    const standard = await createApiKey(srv, { scopes: ['standard'] });
    const s = await create({ name: 'by a key', query: 'sshd' }, standard);
    assert.equal(s.owner.kind, 'api_key');
    for (const token of [
      await createIngestToken(srv, { env: 'default' }),
      await createApiKey(srv, { scopes: ['mcp'] }),
    ])
      assert.equal((await refused('GET', '/api/saved-searches', token)).status, 403);
  });

  it('keeps at most 200 saved searches per owner (409 limit_reached)', async () => {
    const carol = await createUser(srv, { username: 'carol', password: 'carol-password-1' }).then(() =>
      login(srv, 'carol', 'carol-password-1'),
    );
    for (let i = 0; i < 200; i++) await create({ name: `n${i}`, query: 'x' }, carol);
    const r = await refused('POST', '/api/saved-searches', carol, { name: 'one more', query: 'x' });
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, 'limit_reached');
  });

  it('keeps saved searches across a restart', async () => {
    const s = await create({ name: 'survivor', query: '"Failed password"', env: 'prod', shared: true });
    const dataDir = srv.dataDir;
    await srv.close();
    srv = await startTestServer({}, { dataDir });
    const token = await login(srv, 'bob', 'bob-password-12');
    const back = (await call(srv, 'GET', `/api/saved-searches/${s.id}`, { token })) as Saved;
    assert.deepEqual({ ...back, mine: true, canEdit: true }, s);
    assert.equal((await run(s.id, token, { limit: 1000 })).meta.matched, failed.prod);
  });
});
