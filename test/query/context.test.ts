import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';
import type { ContextResult, EventJson, SearchResult } from '../../src/query/types.js';

/**
 * GET /api/context against a real server: the events around one event, compared on the stored
 * microsecond time, with what the test computes itself from the events it ingested.
 */

interface Ev {
  env: string;
  index: string;
  timeUs: number;
  host: string;
  source: string;
  message: string;
}

const T = Date.UTC(2025, 2, 1, 12, 0, 0) * 1000 + 500_000;
const DAY = 86_400_000_000;
const T_BURST = T + 10 * DAY;

/** Microsecond RFC 3339, as answers print times. */
function iso(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
}

function makeEvents(): Ev[] {
  const out: Ev[] = [];
  const ev = (timeUs: number, message: string, o: Partial<Ev> = {}) =>
    out.push({ env: 'default', index: 'app', host: 'web-1', source: '/var/log/app.log', timeUs, message, ...o });
  for (let k = 0; k < 12; k++) ev(T, `at ${k}`);
  // a microsecond apart: a millisecond window would wrongly take these as the same time
  for (let k = 0; k < 3; k++) ev(T - 1, `just before ${k}`);
  for (let k = 0; k < 3; k++) ev(T + 1, `just after ${k}`);
  // pairs sharing a time, so that the cut of `before`/`after` falls between equal times
  for (let j = 1; j <= 60; j++) ev(T - 1000 * Math.ceil(j / 2), `before ${j}`);
  for (let j = 1; j <= 60; j++) ev(T + 1000 * Math.ceil(j / 2), `after ${j}`);
  // far away: found only once the window has widened to everything
  ev(T - 40 * DAY, 'far before');
  ev(T + 40 * DAY, 'far after');
  // other hosts, sources, indexes and envs at the same times
  for (let k = 0; k < 7; k++) ev(T, `other host ${k}`, { host: 'web-2' });
  for (let k = 0; k < 5; k++) ev(T, `other source ${k}`, { source: '/var/log/other.log' });
  for (let k = 0; k < 4; k++) ev(T - 2000 * k, `other index ${k}`, { index: 'audit' });
  for (let k = 0; k < 4; k++) ev(T, `other env ${k}`, { env: 'prod' });
  for (let k = 0; k < 1005; k++) ev(T_BURST, `burst ${k}`, { host: 'burst' });
  return out;
}

/** The order of the answer: time, then host, source, sourcetype (all one here), message. */
function byTime(a: Ev, b: Ev): number {
  return a.timeUs - b.timeUs || cmp(a.host, b.host) || cmp(a.source, b.source) || cmp(a.message, b.message);
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('context around an event', () => {
  let srv: TestServer;
  let admin: string;
  const events = makeEvents();

  const get = async <T>(
    params: Record<string, string | number>,
    token = admin,
  ): Promise<{ status: number; body: T }> => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const res = await fetch(`${srv.url}/api/context?${qs}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as T };
  };

  /** The test's own answer. */
  function expected(
    env: string,
    index: string,
    t: number,
    o: { host?: string; source?: string; before?: number; after?: number } = {},
  ) {
    const mine = events
      .filter(
        (e) =>
          e.env === env &&
          e.index === index &&
          (o.host === undefined || e.host === o.host) &&
          (o.source === undefined || e.source === o.source),
      )
      .sort(byTime);
    const older = mine.filter((e) => e.timeUs < t);
    const newer = mine.filter((e) => e.timeUs > t);
    const nb = o.before ?? 20;
    const na = o.after ?? 20;
    return {
      before: older.slice(Math.max(0, older.length - nb)).map(key),
      at: mine
        .filter((e) => e.timeUs === t)
        .slice(0, 1000)
        .map(key),
      after: newer.slice(0, na).map(key),
      moreBefore: older.length > nb,
      moreAfter: newer.length > na,
    };
  }
  const key = (e: Pick<Ev, 'timeUs' | 'host' | 'source' | 'message'>) =>
    `${iso(e.timeUs)} ${e.host} ${e.source} ${e.message}`;
  const keyOf = (e: EventJson) => `${e.time} ${e.host} ${e.source} ${e.message}`;
  const shape = (r: ContextResult) => ({
    before: r.before.map(keyOf),
    at: r.at.map(keyOf),
    after: r.after.map(keyOf),
    moreBefore: r.moreBefore,
    moreAfter: r.moreAfter,
  });

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    await createEnv(srv, 'prod');
    const groups = new Map<string, Ev[]>();
    for (const e of events) groups.set(`${e.env}/${e.index}`, [...(groups.get(`${e.env}/${e.index}`) ?? []), e]);
    let n = 0;
    for (const [target, list] of groups) {
      const [env, index] = target.split('/');
      const token = await createIngestToken(srv, { env, index });
      // half of each group sealed into blocks, the rest still live in the WAL
      for (const part of [list.filter((_, i) => i % 2 === 0), list.filter((_, i) => i % 2 === 1)]) {
        const body = part
          .map((e) => JSON.stringify({ time: iso(e.timeUs), host: e.host, source: e.source, message: e.message }))
          .join('\n');
        const res = await fetch(`${srv.url}/api/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body,
        });
        assert.equal(res.status, 200, await res.text());
        if (n++ % 2 === 0) await srv.deps.storage.flush();
      }
    }
  });
  after(async () => {
    await srv.close();
  });

  it('answers the newest before, every event at the time and the oldest after, from the same host and source', async () => {
    const o = { host: 'web-1', source: '/var/log/app.log' };
    const r = await get<ContextResult>({ env: 'default', index: 'app', time: iso(T), ...o });
    assert.equal(r.status, 200);
    assert.deepEqual(shape(r.body), expected('default', 'app', T, o));
    assert.equal(r.body.at.length, 12);
    assert.deepEqual(
      r.body.before.slice(-3).map((e) => e.message),
      ['just before 0', 'just before 1', 'just before 2'],
    );
    assert.deepEqual(
      r.body.after.slice(0, 3).map((e) => e.message),
      ['just after 0', 'just after 1', 'just after 2'],
    );
  });

  it('takes every host and source of the env and index when they are not given', async () => {
    const r = await get<ContextResult>({ env: 'default', index: 'app', time: iso(T), before: 7, after: 9 });
    assert.deepEqual(shape(r.body), expected('default', 'app', T, { before: 7, after: 9 }));
    assert.equal(r.body.at.length, 12 + 7 + 5);
    assert.ok(r.body.at.every((e) => e.env === 'default' && e.index === 'app'));
  });

  it('cuts between events that share a time and says more exist, or none', async () => {
    for (const [b, a] of [
      [0, 0],
      [1, 1],
      [4, 5],
      [500, 500],
    ]) {
      const o = { host: 'web-1', source: '/var/log/app.log', before: b, after: a };
      const r = await get<ContextResult>({ env: 'default', index: 'app', time: iso(T), ...o });
      assert.deepEqual(shape(r.body), expected('default', 'app', T, o), `${b}/${a}`);
    }
    // everything fits: the far events are found and nothing lies beyond them
    const all = await get<ContextResult>({
      env: 'default',
      index: 'app',
      time: iso(T),
      host: 'web-1',
      before: 500,
      after: 500,
    });
    assert.deepEqual(
      [all.body.before[0].message, all.body.after.at(-1)!.message, all.body.moreBefore, all.body.moreAfter],
      ['far before', 'far after', false, false],
    );
  });

  it('finds the neighbours of a lone event far from the rest', async () => {
    const t = T - 40 * DAY;
    const r = await get<ContextResult>({ env: 'default', index: 'app', time: iso(t), host: 'web-1', after: 3 });
    assert.deepEqual(shape(r.body), expected('default', 'app', t, { host: 'web-1', after: 3 }));
    assert.deepEqual([r.body.before, r.body.moreBefore, r.body.at.map((e) => e.message)], [[], false, ['far before']]);
  });

  it('returns at most 1000 events at one time', async () => {
    const r = await get<ContextResult>({
      env: 'default',
      index: 'app',
      time: iso(T_BURST),
      host: 'burst',
      before: 2,
      after: 2,
    });
    assert.equal(r.body.at.length, 1000);
    assert.ok(r.body.at.every((e) => e.time === iso(T_BURST) && e.host === 'burst'));
    assert.deepEqual([r.body.before, r.body.after, r.body.moreBefore, r.body.moreAfter], [[], [], false, false]);
  });

  it('answers events in the same JSON as search', async () => {
    const s = await fetch(
      `${srv.url}/api/search?${new URLSearchParams({ q: 'host=web-2', index: 'app', limit: '100' })}`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    const found = ((await s.json()) as SearchResult).events;
    const r = await get<ContextResult>({
      env: 'default',
      index: 'app',
      time: found[0].time,
      host: 'web-2',
      before: 0,
      after: 0,
    });
    const byMessage = (a: EventJson, b: EventJson) => cmp(a.message, b.message);
    assert.deepEqual([...r.body.at].sort(byMessage), [...found].sort(byMessage));
  });

  it('treats a time given with fewer digits or an offset as the same instant', async () => {
    const t = Date.UTC(2025, 2, 1, 12, 0, 0) * 1000 + 500_000;
    const r = await get<ContextResult>({
      env: 'default',
      index: 'app',
      time: '2025-03-01T13:00:00.5+01:00',
      host: 'web-2',
      before: 0,
      after: 0,
    });
    assert.deepEqual(
      r.body.at.map((e) => e.time),
      Array(7).fill(iso(t)),
    );
  });

  it('refuses an env or index the caller may not read with 403', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['default'], indexes: ['app'] } });
    const ok = await get<ContextResult>({ env: 'default', index: 'app', time: iso(T), before: 1, after: 1 }, key);
    assert.equal(ok.status, 200);
    for (const [env, index] of [
      ['prod', 'app'],
      ['default', 'audit'],
      ['_system', '_svclogs'],
    ]) {
      const r = await get<{ error: { code: string } }>({ env, index, time: iso(T) }, key);
      assert.deepEqual([r.status, r.body.error.code], [403, 'access_denied'], `${env}/${index}`);
    }
    assert.equal((await fetch(`${srv.url}/api/context?env=default&index=app&time=${iso(T)}`)).status, 401);
  });

  it('rejects missing or malformed parameters with 400 naming the field', async () => {
    const base = { env: 'default', index: 'app', time: iso(T) };
    const cases: [Record<string, string | number>, string][] = [
      [{ index: 'app', time: iso(T) }, 'env'],
      [{ env: 'default', time: iso(T) }, 'index'],
      [{ env: 'default', index: 'app' }, 'time'],
      [{ ...base, time: 'yesterday' }, 'time'],
      [{ ...base, time: '2025-03-01T12:00:00.1234567Z' }, 'time'],
      [{ ...base, before: 501 }, 'before'],
      [{ ...base, after: -1 }, 'after'],
      [{ ...base, after: 'ten' }, 'after'],
      [{ ...base, env: '*' }, 'env'],
      [{ ...base, index: '*' }, 'index'],
      [{ ...base, limit: 5 }, 'limit'],
    ];
    for (const [params, field] of cases) {
      const r = await get<{ error: { code: string; field: string } }>(params);
      assert.deepEqual(
        [r.status, r.body.error.code, r.body.error.field],
        [400, 'invalid_input', field],
        JSON.stringify(params),
      );
    }
  });
});
