import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createEnv, createUser, ingestEvents, login, send } from '../helpers/auth.js';

/**
 * Panels whose source is a saved search, over a real server: run as the viewer with the
 * dashboard's range (not the saved one), a saved search the viewer may not read is that panel's
 * 404 (the others run), variables inside the saved query, saving checks the reference, and export
 * carries a snapshot that import falls back to. Counts are checked against the events sent here.
 */

interface Answer {
  range: { from: string; to: string };
  columns?: string[];
  rows?: unknown[][];
}
interface Panel {
  id: string;
  source: { savedSearchId?: string; query?: string; env?: string; snapshot?: Record<string, string> };
}
interface ErrorBody {
  error: { code: string; field: string; message: string };
}

const RECENT = new Map([
  ['web-1', 7],
  ['web-2', 5],
]);
/** Events three days old: inside the saved searches' own range (-7d), outside the dashboard's (-2h). */
const OLD = 4;

describe('dashboard panels from saved searches', () => {
  let srv: TestServer;
  let alice: string;
  let bob: string;
  let dash: string;
  const ids: Record<string, string> = {};
  suiteServer((s) => void (srv = s));

  const saveSearch = async (token: string, name: string, query: string, shared: boolean) =>
    (
      (await call(srv, 'POST', '/api/saved-searches', {
        token,
        body: { name, query, env: 'prod', range: { from: '-7d', to: 'now' }, shared },
        expect: 201,
      })) as { id: string }
    ).id;
  const g = (y: number) => ({ x: 0, y: y * 4, w: 12, h: 4 });
  const post = (path: string, token: string, body: unknown) => send(srv, 'POST', path, token, body);
  const run = async (panel: string, token: string, body: object = {}) =>
    post(`/api/dashboards/${dash}/panels/${panel}/run`, token, body);
  const countsOf = (a: Answer) => new Map((a.rows ?? []).map((r) => [String(r[0]), Number(r[1])]));

  before(async () => {
    await createEnv(srv, 'prod');
    const now = Date.now();
    const events: object[] = [];
    for (const [host, n] of RECENT)
      for (let i = 0; i < n; i++) events.push({ time: new Date(now - 60_000 * (i + 1)).toISOString(), host });
    for (let i = 0; i < OLD; i++)
      events.push({ time: new Date(now - 3 * 86_400_000 - i * 60_000).toISOString(), host: 'web-1' });
    await ingestEvents(srv, events, { env: 'prod' });
    await createUser(srv, { username: 'alice', password: 'alice-password-1' });
    await createUser(srv, { username: 'bob', password: 'bob-password-1' });
    alice = await login(srv, 'alice', 'alice-password-1');
    bob = await login(srv, 'bob', 'bob-password-1');
    ids.byHost = await saveSearch(alice, 'By host', '* | stats count by host', true);
    ids.mine = await saveSearch(alice, 'Mine', '* | stats count', false);
    ids.oneHost = await saveSearch(alice, 'One host', 'host=$host$ | stats count', true);
    const d = (await call(srv, 'POST', '/api/dashboards', {
      token: alice,
      body: {
        title: 'Saved',
        shared: true,
        time: { from: '-2h', to: 'now' },
        variables: [{ name: 'host', kind: 'text', default: 'web-1' }],
        panels: [
          { id: 'byHost', type: 'table', source: { savedSearchId: ids.byHost }, grid: g(0) },
          { id: 'mine', title: 'Alice only', type: 'single', source: { savedSearchId: ids.mine }, grid: g(1) },
          { id: 'oneHost', type: 'single', source: { savedSearchId: ids.oneHost }, grid: g(2) },
          { id: 'inline', type: 'single', source: { query: '* | stats count', env: 'prod' }, grid: g(3) },
        ],
      },
      expect: 201,
    })) as { id: string };
    dash = d.id;
  });

  it('runs a shared saved search as the viewer over the dashboard range: the rows of the saved search run over it', async () => {
    const panel = await run('byHost', bob);
    assert.equal(panel.status, 200);
    const a = panel.body as Answer;
    // the dashboard's -2h, not the saved -7d: the old events are left out
    assert.deepEqual(countsOf(a), RECENT);
    const direct = (await call(srv, 'POST', `/api/saved-searches/${ids.byHost}/run`, {
      token: bob,
      body: a.range,
    })) as Answer;
    assert.deepEqual(a.columns, direct.columns);
    assert.deepEqual(
      [...(a.rows ?? [])].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      [...(direct.rows ?? [])].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  });

  it('answers a 404 naming the panel for a saved search the viewer may not read; the other panels run', async () => {
    const denied = await run('mine', bob);
    assert.equal(denied.status, 404);
    const e = (denied.body as ErrorBody).error;
    assert.equal(e.field, 'panels[1].source.savedSearchId');
    assert.match(e.message, /panel "Alice only"/);
    assert.ok(!('rows' in (denied.body as object)));
    const inline = await run('inline', bob);
    assert.equal(inline.status, 200);
    const total = [...RECENT.values()].reduce((x, y) => x + y, 0);
    assert.equal(Number((inline.body as Answer).rows?.[0]?.[0]), total);
    const own = await run('mine', alice);
    assert.equal(own.status, 200);
    assert.equal(Number((own.body as Answer).rows?.[0]?.[0]), total);
  });

  it("substitutes the dashboard's variables inside the saved search's query", async () => {
    const dflt = await run('oneHost', bob);
    assert.equal(Number((dflt.body as Answer).rows?.[0]?.[0]), RECENT.get('web-1'));
    const web2 = await run('oneHost', bob, { vars: { host: 'web-2' } });
    assert.equal(Number((web2.body as Answer).rows?.[0]?.[0]), RECENT.get('web-2'));
  });

  it('answers an edited saved search at its next run: the resolved query is in the cache key', async () => {
    // a `now` no earlier run used (a minute on: the events are still inside the dashboard's -2h)
    const now = new Date(Date.now() + 60_000).toISOString();
    const first = (await run('mine', alice, { now })).body as Answer & { meta: { cache: string } };
    assert.equal(
      Number(first.rows?.[0]?.[0]),
      [...RECENT.values()].reduce((x, y) => x + y, 0),
    );
    assert.equal(first.meta.cache, 'miss');
    const cur = (await call(srv, 'GET', `/api/saved-searches/${ids.mine}`, { token: alice })) as { version: number };
    await call(srv, 'PATCH', `/api/saved-searches/${ids.mine}`, {
      token: alice,
      // a query no other panel ran: an answer from the cache could only be the old one's
      body: { query: 'host="web-2" | stats count AS edited', version: cur.version },
    });
    const edited = (await run('mine', alice, { now })).body as Answer & { meta: { cache: string } };
    assert.equal(edited.meta.cache, 'miss');
    assert.equal(Number(edited.rows?.[0]?.[0]), RECENT.get('web-2'));
  });

  it('refuses to save an unknown or unreadable saved search, or a source of both kinds, naming the path', async () => {
    const body = (source: object) => ({ title: 'Bad', panels: [{ type: 'table', source, grid: g(0) }] });
    const unknown = await post('/api/dashboards', alice, body({ savedSearchId: 'ss_nope' }));
    assert.equal(unknown.status, 400);
    assert.equal((unknown.body as ErrorBody).error.field, 'panels[0].source.savedSearchId');
    const private_ = await post('/api/dashboards', bob, body({ savedSearchId: ids.mine }));
    assert.equal(private_.status, 400);
    assert.equal((private_.body as ErrorBody).error.field, 'panels[0].source.savedSearchId');
    const both = await post('/api/dashboards', alice, body({ savedSearchId: ids.byHost, query: '*', env: 'prod' }));
    assert.equal(both.status, 400);
    assert.equal((both.body as ErrorBody).error.field, 'panels[0].source');
    const unknownVar = await post('/api/dashboards', alice, body({ savedSearchId: ids.oneHost }));
    assert.equal(unknownVar.status, 400);
    assert.match((unknownVar.body as ErrorBody).error.message, /saved search "One host".*\$host\$/);
  });

  it('exports a reference with a snapshot; import on the same server keeps the reference', async () => {
    const file = (await call(srv, 'GET', `/api/dashboards/${dash}/export`, { token: bob })) as { panels: Panel[] };
    assert.deepEqual(file.panels[0].source, {
      savedSearchId: ids.byHost,
      snapshot: { name: 'By host', query: '* | stats count by host', env: 'prod' },
    });
    // bob may not read alice's private one: its reference goes out without a snapshot of it
    assert.deepEqual(file.panels[1].source, { savedSearchId: ids.mine });
    const back = (await call(srv, 'POST', '/api/dashboards/import', {
      token: alice,
      body: file,
      expect: 201,
    })) as { panels: Panel[]; warnings: string[] };
    assert.deepEqual(back.warnings, []);
    assert.deepEqual(
      back.panels.map((p) => p.source),
      [
        { savedSearchId: ids.byHost },
        { savedSearchId: ids.mine },
        { savedSearchId: ids.oneHost },
        file.panels[3].source,
      ],
    );
  });

  it('imports a panel whose saved search is gone as inline from the snapshot, and says so', async () => {
    const gone = await saveSearch(alice, 'Soon gone', 'host="web-2" | stats count', true);
    const d = (await call(srv, 'POST', '/api/dashboards', {
      token: alice,
      body: { title: 'Gone', panels: [{ id: 'g', type: 'single', source: { savedSearchId: gone }, grid: g(0) }] },
      expect: 201,
    })) as { id: string };
    const file = (await call(srv, 'GET', `/api/dashboards/${d.id}/export`, { token: alice })) as object;
    await call(srv, 'DELETE', `/api/saved-searches/${gone}`, { token: alice, expect: 204 });
    const back = (await call(srv, 'POST', '/api/dashboards/import', {
      token: alice,
      body: file,
      expect: 201,
    })) as { id: string; panels: Panel[]; warnings: string[] };
    assert.deepEqual(back.panels[0].source, { query: 'host="web-2" | stats count', env: 'prod' });
    assert.equal(back.warnings.length, 1);
    assert.match(back.warnings[0], /^panels\[0\].*"Soon gone"/);
    const a = (await call(srv, 'POST', `/api/dashboards/${back.id}/panels/g/run`, {
      token: alice,
      body: {},
    })) as Answer;
    assert.equal(Number(a.rows?.[0]?.[0]), RECENT.get('web-2'));
    // the original dashboard's panel now answers the 404, not a 500
    const orphan = await post(`/api/dashboards/${d.id}/panels/g/run`, alice, {});
    assert.equal(orphan.status, 404);
    assert.equal((orphan.body as ErrorBody).error.field, 'panels[0].source.savedSearchId');
    // that dead reference does not stop a change to the rest of the dashboard (its title here) ...
    const renamed = (await call(srv, 'PATCH', `/api/dashboards/${d.id}`, {
      token: alice,
      body: { version: 1, title: 'Gone, renamed' },
    })) as { title: string; version: number };
    assert.deepEqual([renamed.title, renamed.version], ['Gone, renamed', 2]);
    // ... but a panel newly pointed at it is refused, naming its path
    const added = (await call(srv, 'PATCH', `/api/dashboards/${d.id}`, {
      token: alice,
      body: {
        version: 2,
        panels: [
          { id: 'g', type: 'single', source: { savedSearchId: gone }, grid: g(0) },
          { id: 'h', type: 'single', source: { savedSearchId: gone }, grid: g(1) },
        ],
      },
      expect: 400,
    })) as ErrorBody;
    assert.equal(added.error.field, 'panels[1].source.savedSearchId');
  });
});
