import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken, createUser, login, send } from '../helpers/auth.js';

/**
 * Dashboards as stored objects, end to end over a real server: create, read, share, change with a
 * version, delete, export and import (with the errors an import names), and a restart on the same
 * data dir. Panel runs are in panels-http.test.ts.
 */

interface Dashboard {
  id: string;
  title: string;
  version: number;
  shared: boolean;
  canEdit: boolean;
  owner: { name: string };
  panels: { id: string; source: { query: string } }[];
  [k: string]: unknown;
}
interface ErrorBody {
  error: { code: string; message: string; field?: string; position?: number; currentVersion?: number };
}

const PANELS = [
  {
    id: 'errors',
    title: 'Errors by host',
    type: 'timeseries',
    source: { query: 'level=error host=$host$ | timechart count by host', env: 'default' },
    options: { style: 'area' },
    grid: { x: 0, y: 0, w: 12, h: 6 },
  },
  {
    title: 'Total',
    type: 'single',
    source: { query: '* | stats count', env: '*' },
    options: { thresholds: [{ value: 100, color: 'red' }], trend: true },
    grid: { x: 12, y: 0, w: 6, h: 3 },
  },
  {
    title: 'Events',
    type: 'events',
    source: { query: 'host=$host$', env: 'default', index: 'main' },
    grid: { x: 0, y: 6, w: 24, h: 8 },
  },
];
const VARIABLES = [
  {
    name: 'host',
    label: 'Host',
    kind: 'query',
    query: 'level=$level$ | stats count by host',
    env: 'default',
    multi: true,
    default: ['web-1'],
  },
  { name: 'level', kind: 'list', values: ['error', 'warn'], default: 'error' },
];

describe('dashboards over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  let alice: string;
  let bob: string;

  before(async () => {
    srv = await startTestServer({}, { keepData: true });
    admin = await adminToken(srv);
    for (const u of ['alice', 'bob']) await createUser(srv, { username: u, password: `${u}-password-1` });
    alice = await login(srv, 'alice', 'alice-password-1');
    bob = await login(srv, 'bob', 'bob-password-1');
  });
  after(async () => {
    await srv.close();
    rmSync(srv.dataDir, { recursive: true, force: true });
  });

  const create = async (body: object, token = alice) =>
    (await call(srv, 'POST', '/api/dashboards', { token, body, expect: 201 })) as Dashboard;
  const raw = (method: string, path: string, token: string, body?: unknown) =>
    send<ErrorBody>(srv, method, path, token, body);
  const count = async (token = admin) =>
    ((await call(srv, 'GET', '/api/dashboards', { token })) as { dashboards: unknown[] }).dashboards.length;

  it('creates, reads, changes and deletes a dashboard, giving panels without an id one', async () => {
    const d = await create({ title: 'Web', variables: VARIABLES, panels: PANELS, refresh: '1m' });
    assert.equal(d.version, 1);
    assert.equal(d.owner.name, 'alice');
    assert.equal(d.shared, false);
    assert.deepEqual(
      d.panels.map((p) => p.id),
      ['errors', 'p1', 'p2'],
    );
    assert.deepEqual(d.time, { from: '-24h', to: 'now' });
    const got = (await call(srv, 'GET', `/api/dashboards/${d.id}`, { token: alice })) as Dashboard;
    assert.deepEqual(got, d);
    const changed = (await call(srv, 'PATCH', `/api/dashboards/${d.id}`, {
      token: alice,
      body: { version: 1, title: 'Web servers', time: { from: '-7d@d', to: 'now' } },
    })) as Dashboard;
    assert.equal(changed.version, 2);
    assert.equal(changed.title, 'Web servers');
    assert.deepEqual(changed.panels, d.panels);
    await call(srv, 'DELETE', `/api/dashboards/${d.id}`, { token: alice, expect: 204 });
    await call(srv, 'GET', `/api/dashboards/${d.id}`, { token: alice, expect: 404 });
  });

  it('takes the scopes of search: no credentials is 401, an ingest token 403', async () => {
    assert.equal((await fetch(`${srv.url}/api/dashboards`)).status, 401);
    const token = await createIngestToken(srv, { env: 'default' });
    assert.equal((await raw('GET', '/api/dashboards', token)).status, 403);
  });

  it('answers 409 version_conflict with the current version to an edit made from a stale one', async () => {
    const d = await create({ title: 'Conflict' });
    // two editors who both read version 1, at once: one wins, the other is told, nothing is lost
    const both = await Promise.all(
      ['first', 'second'].map((title) => raw('PATCH', `/api/dashboards/${d.id}`, alice, { version: 1, title })),
    );
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    const lost = both.find((r) => r.status === 409)!;
    assert.equal(lost.body.error.code, 'version_conflict');
    assert.equal(lost.body.error.currentVersion, 2);
    const put = await raw('PUT', `/api/dashboards/${d.id}`, alice, { version: 1, title: 'stale' });
    assert.equal(put.status, 409);
    const now = (await call(srv, 'GET', `/api/dashboards/${d.id}`, { token: alice })) as Dashboard;
    assert.equal(now.version, 2);
    assert.ok(['first', 'second'].includes(now.title));
    const replaced = (await call(srv, 'PUT', `/api/dashboards/${d.id}`, {
      token: alice,
      body: { version: 2, title: 'replaced', refresh: '5m' },
    })) as Dashboard;
    assert.equal(replaced.version, 3);
    assert.equal(replaced.refresh, '5m');
  });

  it('shows a shared dashboard read-only to others, lets admins edit it, and hides a private one', async () => {
    const shared = await create({ title: 'Shared ops', shared: true, panels: PANELS.slice(1, 2) });
    const own = await create({ title: 'Private notes' });
    const seen = (await call(srv, 'GET', '/api/dashboards', { token: bob })) as { dashboards: Dashboard[] };
    assert.ok(seen.dashboards.some((d) => d.id === shared.id && d.canEdit === false));
    assert.ok(!seen.dashboards.some((d) => d.id === own.id));
    const got = (await call(srv, 'GET', `/api/dashboards/${shared.id}`, { token: bob })) as Dashboard;
    assert.equal(got.canEdit, false);
    const edit = await raw('PATCH', `/api/dashboards/${shared.id}`, bob, { version: 1, title: 'mine now' });
    assert.equal(edit.status, 403);
    assert.equal(edit.body.error.code, 'access_denied');
    assert.equal((await raw('DELETE', `/api/dashboards/${shared.id}`, bob)).status, 403);
    await call(srv, 'GET', `/api/dashboards/${own.id}`, { token: bob, expect: 404 });
    const byAdmin = (await call(srv, 'PATCH', `/api/dashboards/${shared.id}`, {
      token: admin,
      body: { version: 1, description: 'kept by the admins' },
    })) as Dashboard;
    assert.equal(byAdmin.version, 2);
    assert.equal(byAdmin.owner.name, 'alice');
    // ?q= finds by title and by owner name
    const byTitle = (await call(srv, 'GET', '/api/dashboards?q=OPS', { token: bob })) as { dashboards: Dashboard[] };
    assert.deepEqual(
      byTitle.dashboards.map((d) => d.id),
      [shared.id],
    );
    const byOwner = (await call(srv, 'GET', '/api/dashboards?q=alic', { token: alice })) as { dashboards: Dashboard[] };
    assert.ok(byOwner.dashboards.some((d) => d.id === own.id));
  });

  it('exports a dashboard that, deleted and imported, is the same dashboard', async () => {
    const d = await create({
      title: 'Round trip',
      description: 'all kinds',
      time: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
      refresh: '10s',
      variables: VARIABLES,
      panels: PANELS,
    });
    const file = (await call(srv, 'GET', `/api/dashboards/${d.id}/export`, { token: alice })) as Record<
      string,
      unknown
    >;
    assert.equal(file.format, 1);
    for (const k of ['id', 'owner', 'version', 'createdAt', 'updatedAt', 'shared']) assert.ok(!(k in file), k);
    await call(srv, 'DELETE', `/api/dashboards/${d.id}`, { token: alice, expect: 204 });
    const back = (await call(srv, 'POST', '/api/dashboards/import', {
      token: alice,
      body: file,
      expect: 201,
    })) as Dashboard & { warnings: string[] };
    const strip = ({ id, createdAt, updatedAt, ...rest }: Dashboard) => (void [id, createdAt, updatedAt], rest);
    assert.notEqual(back.id, d.id);
    const { warnings, ...imported } = back;
    assert.deepEqual(warnings, [], 'no saved-search panel: nothing converted');
    assert.deepEqual(strip(imported), strip(d));
  });

  describe('an import that is wrong names the place and saves nothing', () => {
    const good = { format: 1, title: 'Import', variables: VARIABLES, panels: PANELS };
    const cases: [string, object, string, RegExp, number?][] = [
      [
        'a field it does not know',
        { ...good, panels: [{ ...PANELS[0], colour: 'red' }] },
        'panels[0].colour',
        /unknown field/,
      ],
      [
        'an unknown panel type',
        { ...good, panels: [PANELS[0], { ...PANELS[1], type: 'gauge' }] },
        'panels[1].type',
        /unknown panel type: want one of timeseries, single, table, bar, pie, events, histogram/,
      ],
      [
        'variables that use each other in a loop',
        {
          ...good,
          variables: [
            { name: 'a', kind: 'query', query: 'x=$b$ | stats count by a', env: 'default' },
            { name: 'b', kind: 'query', query: 'y=$a$ | stats count by b', env: 'default' },
          ],
          panels: [],
        },
        'variables[0].query',
        /loop: \$a\$ → \$b\$ → \$a\$/,
      ],
      [
        'a panel query with a syntax error',
        {
          ...good,
          panels: [PANELS[0], { ...PANELS[1], source: { query: 'host=$host$ | stats count by', env: 'default' } }],
        },
        'panels[1].source.query',
        /^panels\[1\]\.source\.query: .*position 28/,
        28,
      ],
      [
        'a panel query naming an unknown variable',
        { ...good, panels: [{ ...PANELS[0], source: { query: 'host=$hots$', env: 'default' } }] },
        'panels[0].source.query',
        /unknown variable \$hots\$ at position 5/,
        5,
      ],
      ['another format', { ...good, format: 2 }, 'format', /want 1/],
      [
        'a list default that is not one of its values',
        { ...good, variables: [VARIABLES[0], { ...VARIABLES[1], default: 'debug' }] },
        'variables[1].default',
        /"debug" is not one of the values/,
      ],
      [
        'a panel off the grid',
        { ...good, panels: [{ ...PANELS[0], grid: { x: 20, y: 0, w: 6, h: 2 } }] },
        'panels[0].grid',
        /24 columns/,
      ],
    ];
    for (const [what, body, field, message, position] of cases) {
      it(what, async () => {
        const before = await count();
        const res = await raw('POST', '/api/dashboards/import', alice, body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.field, field);
        assert.match(res.body.error.message, message);
        assert.ok(res.body.error.message.startsWith(`${field}: `), res.body.error.message);
        if (position !== undefined) assert.equal(res.body.error.position, position);
        assert.equal(await count(), before, 'nothing saved');
      });
    }
  });

  it("ships, on first start, a shared dashboard over svc's own records whose panels all run", async () => {
    const list = (await call(srv, 'GET', '/api/dashboards?q=svc:', { token: alice })) as { dashboards: Dashboard[] };
    assert.equal(list.dashboards.length, 1);
    const d = (await call(srv, 'GET', `/api/dashboards/${list.dashboards[0].id}`, { token: admin })) as Dashboard;
    assert.equal(d.owner.name, 'admin');
    assert.equal(d.shared, true);
    for (const p of d.panels) {
      const a = (await call(srv, 'POST', `/api/dashboards/${d.id}/panels/${p.id}/run`, { token: admin, body: {} })) as {
        meta: { hidden?: string };
      };
      assert.equal(a.meta.hidden, undefined, p.id);
      // _system is for admins: another viewer is told, not refused
      const b = (await call(srv, 'POST', `/api/dashboards/${d.id}/panels/${p.id}/run`, { token: alice, body: {} })) as {
        meta: { hidden?: string };
      };
      if (p.id !== 'ingest') assert.match(b.meta.hidden ?? '', /environment "_system"/, p.id);
    }
  });

  it('takes a shared dashboard as the home dashboard of Admin → General, refusing an unknown or private one', async () => {
    const home = async (token: string) =>
      ((await call(srv, 'GET', '/api/dashboards/home', { token })) as { id: string | null }).id;
    const setHome = (homeDashboard: string | null, token = admin) =>
      raw('PATCH', '/api/admin/settings', token, { homeDashboard });
    assert.equal(await home(bob), null, 'none set: the UI opens the search page');
    const unknown = await setHome('db_nope');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.field, 'homeDashboard');
    assert.match(unknown.body.error.message, /^homeDashboard: no dashboard db_nope/);
    const priv = await create({ title: 'Mine only' });
    const refused = await setHome(priv.id);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.field, 'homeDashboard');
    assert.match(refused.body.error.message, /private: share it first/);
    assert.equal((await setHome(priv.id, alice)).status, 403, 'an admin setting');
    const shared = await create({ title: 'Team home', shared: true });
    const ok = await setHome(shared.id);
    assert.equal(ok.status, 200);
    assert.equal((ok.body as unknown as { settings: { homeDashboard?: string } }).settings.homeDashboard, shared.id);
    assert.equal(await home(bob), shared.id);
    // made private since: those who may no longer open it get the search page, not a dead end
    await call(srv, 'PATCH', `/api/dashboards/${shared.id}`, { token: alice, body: { version: 1, shared: false } });
    assert.equal(await home(bob), null);
    assert.equal(await home(alice), shared.id);
    assert.equal((await setHome(null)).status, 200);
    assert.equal(await home(alice), null);
  });

  it('keeps dashboards across a restart', async () => {
    const d = await create({ title: 'Survives', shared: true, variables: VARIABLES, panels: PANELS });
    const dataDir = srv.dataDir;
    await srv.close();
    srv = await startTestServer({}, { dataDir });
    admin = await adminToken(srv);
    alice = await login(srv, 'alice', 'alice-password-1');
    const got = (await call(srv, 'GET', `/api/dashboards/${d.id}`, { token: alice })) as Dashboard;
    assert.deepEqual(got, d);
  });
});
