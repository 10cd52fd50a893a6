import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call, createEnv, createUser, ingestEvents, login } from '../helpers/auth.js';

/**
 * Panels run as their viewer over a real server: variables inserted as values (never as query
 * syntax), a query variable's values, RBAC narrowing with a note instead of an error, the answer
 * cache and shared runs. Every number is checked against counts made here from the events sent.
 */

interface Answer {
  panel: { id: string; type: string };
  range: { from: string; to: string };
  source: { query: string; env: string; index?: string };
  columns?: string[];
  rows?: unknown[][];
  events?: unknown[];
  buckets?: { count: number }[];
  meta: { cache: string; hidden?: string; matched: number };
}

/** A host value with a quote and a pipe: inserted as query text it would cut the query short. */
const HOSTILE = 'evil" | head 1 | eval x="';
const HOSTS = ['web-1', 'web-2', HOSTILE];

/** Events per env and host, minutes apart in the last hour; the counts the tests compare with. */
function eventsOf(env: string, perHost: number[]): { events: object[]; byHost: Map<string, number> } {
  const now = Date.now();
  const events: object[] = [];
  const byHost = new Map<string, number>();
  HOSTS.forEach((host, h) => {
    for (let i = 0; i < perHost[h]; i++)
      events.push({ time: new Date(now - 60_000 * (1 + i + h)).toISOString(), host, message: `${env} event ${i}` });
    byHost.set(host, perHost[h]);
  });
  return { events, byHost };
}

describe('dashboard panels run as the viewer', () => {
  let srv: TestServer;
  let admin: string;
  let viewer: string;
  let dash: string;
  const prod = eventsOf('prod', [7, 5, 4]);
  const staging = eventsOf('staging', [3, 2, 0]);
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  before(async () => {
    await createEnv(srv, 'prod');
    await createEnv(srv, 'staging');
    await ingestEvents(srv, prod.events, { env: 'prod' });
    await ingestEvents(srv, staging.events, { env: 'staging' });
    await createUser(srv, { username: 'viewer', password: 'viewer-password-1', allow: { envs: ['prod'] } });
    viewer = await login(srv, 'viewer', 'viewer-password-1');
    const d = (await call(srv, 'POST', '/api/dashboards', {
      token: admin,
      body: {
        title: 'Hosts',
        shared: true,
        time: { from: '-2h', to: 'now' },
        refresh: '1m',
        variables: [
          { name: 'host', kind: 'text', default: 'web-1' },
          { name: 'hosts', kind: 'query', query: '* | stats count by host', env: 'prod', multi: true },
        ],
        panels: [
          { id: 'one', type: 'single', source: { query: 'host=$host$ | stats count', env: 'prod' }, grid: g(0) },
          { id: 'many', type: 'bar', source: { query: 'host=$hosts$ | stats count', env: 'prod' }, grid: g(1) },
          { id: 'all', type: 'single', source: { query: '* | stats count', env: '*' }, grid: g(2) },
          { id: 'staging', type: 'table', source: { query: '* | stats count', env: 'staging' }, grid: g(3) },
          { id: 'hist', type: 'histogram', source: { query: '*', env: 'prod' }, grid: g(4) },
          { id: 'events', type: 'events', source: { query: 'host=$host$', env: 'prod' }, grid: g(5) },
        ],
      },
      expect: 201,
    })) as { id: string };
    dash = d.id;
  });

  const g = (y: number) => ({ x: 0, y: y * 4, w: 12, h: 4 });
  const run = async (panel: string, body: object, token = admin) =>
    (await call(srv, 'POST', `/api/dashboards/${dash}/panels/${panel}/run`, { token, body, expect: 200 })) as Answer;
  const countOf = (a: Answer) => Number(a.rows?.[0]?.[0]);
  // half past a minute: a `now` a few seconds earlier still rounds (up, to the 1m refresh) to the same minute
  let clock = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  /** A `now` no earlier run used (a fresh load): minutes on, as the refresh rounds to the minute. */
  const fresh = () => new Date((clock += 120_000)).toISOString();

  it('inserts a value with a quote and a pipe as one value, never as query syntax', async () => {
    const now = fresh();
    const a = await run('one', { now, vars: { host: HOSTILE } });
    assert.equal(a.panel.type, 'single');
    assert.deepEqual(a.columns, ['count']);
    assert.equal(countOf(a), prod.byHost.get(HOSTILE));
    assert.ok(prod.byHost.get(HOSTILE)! > 1, 'a `head 1` that got in would show 1');
    const dflt = await run('one', { now });
    assert.equal(countOf(dflt), prod.byHost.get('web-1'));
    const events = await run('events', { now, vars: { host: HOSTILE } });
    assert.equal(events.events?.length, prod.byHost.get(HOSTILE));
  });

  it('names the query it ran, values inserted as the search page would take them (for a drill-down)', async () => {
    const a = await run('many', { now: fresh(), vars: { hosts: ['web-2', HOSTILE] } });
    assert.deepEqual(a.source, {
      query: 'host IN ("web-2", "evil\\" | head 1 | eval x=\\"") | stats count',
      env: 'prod',
    });
    const search = (await call(
      srv,
      'GET',
      `/api/search?${new URLSearchParams({ q: a.source.query, env: 'prod', from: a.range.from, to: a.range.to })}`,
      {
        token: admin,
      },
    )) as Answer;
    assert.deepEqual(search.rows, a.rows);
  });

  it('turns a multi value into an IN list', async () => {
    const a = await run('many', { now: fresh(), vars: { hosts: ['web-2', HOSTILE] } });
    assert.equal(countOf(a), prod.byHost.get('web-2')! + prod.byHost.get(HOSTILE)!);
  });

  it('refuses a variable the dashboard lacks, or a query variable without a value, naming it', async () => {
    const res = await fetch(`${srv.url}/api/dashboards/${dash}/panels/one/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ vars: { nope: 'x' } }),
    });
    const body = (await res.json()) as { error: { field: string; message: string } };
    assert.equal(res.status, 400);
    assert.equal(body.error.field, 'vars.nope');
    const unset = await fetch(`${srv.url}/api/dashboards/${dash}/panels/many/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const b2 = (await unset.json()) as { error: { field: string; message: string } };
    assert.equal(unset.status, 400);
    assert.equal(b2.error.field, 'panels[1].source.query');
    assert.match(b2.error.message, /\$hosts\$ has no value \(panel "many"\)/);
  });

  it("lists a query variable's values from its query's first column", async () => {
    const v = (await call(srv, 'POST', `/api/dashboards/${dash}/variables/hosts/values`, {
      token: admin,
      body: { now: fresh() },
    })) as { values: string[] };
    assert.deepEqual(v.values.sort(), [...prod.byHost.keys()].sort());
  });

  it("gives a restricted viewer only their env's numbers, saying what is hidden, never an error", async () => {
    const now = fresh();
    const mine = await run('all', { now }, viewer);
    assert.equal(countOf(mine), total(prod.byHost));
    // default and staging: the envs of this server the viewer's allowlist leaves out
    assert.match(mine.meta.hidden ?? '', /hidden by your access \(2 environments you may not read\)/);
    const everything = await run('all', { now }, admin);
    assert.equal(countOf(everything), total(prod.byHost) + total(staging.byHost));
    assert.equal(everything.meta.hidden, undefined);
    // the viewer's answer was not served to the admin from the cache: access is part of the key
    assert.equal(everything.meta.cache, 'miss');
    const blocked = await run('staging', { now }, viewer);
    assert.equal(blocked.rows, undefined);
    assert.equal(blocked.meta.matched, 0);
    assert.match(blocked.meta.hidden ?? '', /you may not read environment "staging"/);
    assert.equal(countOf(await run('staging', { now }, admin)), total(staging.byHost));
  });

  it('answers a histogram panel with the buckets of its search', async () => {
    const a = await run('hist', { now: fresh() });
    assert.equal(a.panel.type, 'histogram');
    assert.equal(
      a.buckets?.reduce((s, b) => s + b.count, 0),
      total(prod.byHost),
    );
  });

  it('answers a second run within the refresh interval from the cache, without searching again', async () => {
    const runner = srv.deps.dashboards.runner;
    const now = fresh();
    const first = await run('one', { now });
    assert.equal(first.meta.cache, 'miss');
    const runs = runner.counts.runs;
    // seconds later in the same load interval: the same resolved range
    const again = await run('one', { now: new Date(Date.parse(now) - 5000).toISOString() });
    assert.equal(again.meta.cache, 'hit');
    assert.deepEqual(again.range, first.range);
    assert.equal(countOf(again), countOf(first));
    assert.equal(runner.counts.runs, runs, 'no search ran');
    const other = await run('one', { now, vars: { host: 'web-2' } });
    assert.equal(other.meta.cache, 'miss');
    assert.equal(countOf(other), prod.byHost.get('web-2'));
  });

  it('runs two identical panel runs in flight once', async () => {
    const svc = srv.deps.dashboards;
    const runs = svc.runner.counts.runs;
    const now = fresh();
    // called in one tick through the service the route calls: the second surely finds the first in flight
    const who = await srv.deps.auth.authenticate(admin);
    const [a, b] = await Promise.all([
      svc.runPanel(who, dash, 'all', { now }),
      svc.runPanel(who, dash, 'all', { now }),
    ]);
    assert.deepEqual([a.meta.cache, b.meta.cache], ['miss', 'shared']);
    assert.equal(svc.runner.counts.runs, runs + 1);
    assert.equal(countOf(a as Answer), total(prod.byHost) + total(staging.byHost));
    assert.deepEqual(b, { ...a, meta: { ...a.meta, cache: 'shared' } });
  });
});
