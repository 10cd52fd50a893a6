import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createApiKey, createEnv, createIngestToken, createUser, login } from '../helpers/auth.js';
import { PIPES } from '../../src/query/pipes/registry.js';
import { FUNCTIONS } from '../../src/query/expr/functions.js';
import type { CatalogAnswer } from '../../src/http/routes/catalog.js';
import type { LanguageReference } from '../../src/query/language.js';

/** GET /api/catalog (what the caller may search) and GET /api/language (the editor's vocabulary). */

const T0 = Date.UTC(2025, 5, 1, 8, 0, 0) * 1000;

/** Microsecond RFC 3339, as every answer prints times. */
function iso(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
}

/** What the test ingests: env → index → event times (µs). */
const DATA: Record<string, Record<string, number[]>> = {
  default: { web: [T0 + 1, T0 + 60_000_123, T0 + 7_200_000_999], api: [T0 - 86_400_000_000 + 5] },
  prod: { web: [T0 + 42, T0 + 43] },
};

describe('catalog and language routes', () => {
  let srv: TestServer;
  let admin: string;
  const get = async <T>(path: string, token?: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${srv.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as T };
  };

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    for (const env of ['prod', 'staging', 'Alpha']) await createEnv(srv, env);
    for (const [env, indexes] of Object.entries(DATA)) {
      for (const [index, times] of Object.entries(indexes)) {
        const token = await createIngestToken(srv, { env, index });
        const body = times.map((t) => JSON.stringify({ time: iso(t), message: `event at ${t}` })).join('\n');
        const res = await fetch(`${srv.url}/api/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body,
        });
        assert.equal(res.status, 200, await res.text());
      }
    }
  });
  after(async () => {
    await srv.close();
  });

  /** The test's own catalog entry of one env, narrowed to `indexes`. */
  function expectedEnv(name: string, indexes?: string[]) {
    const idx = Object.entries(DATA[name] ?? {})
      .filter(([i]) => !indexes || indexes.includes(i))
      .map(([i, times]) => ({
        name: i,
        events: times.length,
        earliest: iso(Math.min(...times)),
        latest: iso(Math.max(...times)),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const all = idx.flatMap((i) => DATA[name][i.name]);
    return {
      name,
      events: all.length,
      earliest: all.length ? iso(Math.min(...all)) : null,
      latest: all.length ? iso(Math.max(...all)) : null,
      indexes: idx,
    };
  }

  it('lists every env an admin may search, with indexes, counts and microsecond times, sorted by name', async () => {
    const r = await get<CatalogAnswer>('/api/catalog', admin);
    assert.equal(r.status, 200);
    const names = r.body.envs.map((e) => e.name);
    assert.deepEqual(names, [...names].sort());
    // svc's own logs are in _system, which only admins see, next to the control plane's envs
    assert.ok(names.includes('_system'), names.join());
    assert.deepEqual(
      r.body.envs.filter((e) => e.name !== '_system'),
      ['Alpha', 'default', 'prod', 'staging'].map((n) => expectedEnv(n)),
    );
  });

  it('shows an env without data with 0 events and null times', async () => {
    const r = await get<CatalogAnswer>('/api/catalog', admin);
    assert.deepEqual(
      r.body.envs.find((e) => e.name === 'staging'),
      { name: 'staging', events: 0, earliest: null, latest: null, indexes: [] },
    );
  });

  it('narrows to the envs and indexes a key may read, without _system', async () => {
    const key = await createApiKey(srv, {
      scopes: ['standard'],
      allow: { envs: ['default', 'staging'], indexes: ['web'] },
    });
    const r = await get<CatalogAnswer>('/api/catalog', key);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.envs, [expectedEnv('default', ['web']), expectedEnv('staging')]);
  });

  it('narrows for a user limited to one env', async () => {
    await createUser(srv, { username: 'cat-user', password: 'cat-user-password', allow: { envs: ['prod'] } });
    const session = await login(srv, 'cat-user', 'cat-user-password');
    const r = await get<CatalogAnswer>('/api/catalog', session);
    assert.deepEqual(r.body.envs, [expectedEnv('prod')]);
  });

  it('refuses anonymous calls with 401 and MCP-only keys with 403', async () => {
    const mcp = await createApiKey(srv, { scopes: ['mcp'] });
    for (const path of ['/api/catalog', '/api/language']) {
      assert.equal((await get(path)).status, 401, path);
      assert.equal((await get(path, mcp)).status, 403, path);
    }
  });

  it('answers the language reference with every pipe, function and aggregation', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], allow: { envs: ['prod'] } });
    const r = await get<LanguageReference>('/api/language', key);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.pipes.map((p) => p.name),
      Object.keys(PIPES).sort(),
    );
    assert.deepEqual(
      r.body.functions.map((f) => f.name),
      Object.keys(FUNCTIONS).sort(),
    );
    const stats = r.body.pipes.find((p) => p.name === 'stats')!;
    assert.deepEqual(stats, {
      name: 'stats',
      syntax: 'stats <agg>[, <agg>…] [by <field>, …]',
      description: stats.description,
      example: '* | stats count by host',
    });
    const names = r.body.aggregations.map((a) => a.name);
    for (const a of ['count', 'sum', 'avg', 'min', 'max', 'dc', 'values', 'median', 'p95'])
      assert.ok(names.includes(a), a);
    assert.equal(r.body.aggregations.find((a) => a.name === 'p95')!.syntax, 'p<1-99>(field) | perc<1-99>(field)');
    assert.deepEqual(r.body.functions.find((f) => f.name === 'lower')!.syntax, 'lower(x)');
    assert.deepEqual(r.body.coreFields, ['_time', 'host', 'source', 'sourcetype', 'message', 'index', 'env']);
    for (const k of ['AND', 'OR', 'NOT', 'by', 'as']) assert.ok(r.body.keywords.includes(k), k);
  });
});
