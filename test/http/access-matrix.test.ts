import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { call, createApiKeyRecord, createIngestToken, createUser, login } from '../helpers/auth.js';
import {
  EXPECTED,
  EXPECTED_MCP_BEFORE_ANY_MCP_KEY,
  UNKNOWN_SECRET,
  type CredentialName,
  type EndpointClass,
} from './access-matrix.fixtures.js';

const ADMIN_PASSWORD = 'test-admin-password';
const TWO_DAYS = String(2 * 86_400);

const MCP_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'access-matrix', version: '1' } },
});

/** The real endpoint of each class, as a shipper or client calls it. */
function request(cls: EndpointClass, url: string, auth: Record<string, string>): Promise<Response> {
  switch (cls) {
    case 'search':
      return fetch(`${url}/api/search?q=*&env=default`, { headers: auth });
    case 'admin':
      return fetch(`${url}/api/admin/api-keys`, { headers: auth });
    case 'mcp':
      return fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: MCP_INIT,
      });
    case 'ingest':
      return fetch(`${url}/api/ingest?env=default`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-ndjson' },
        body: '{"message":"access matrix"}\n',
      });
  }
}

/**
 * The full matrix of docs/decisions/0003-access-classes-and-credentials.md against a real svc process on a
 * temporary data dir: every credential × search, admin, MCP and ingest, each cell with its exact status. The
 * expired key is created first; the process is then restarted with its clock two days ahead.
 */
describe('access matrix over HTTP against a real svc process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-matrix-'));
  const env = { SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: ADMIN_PASSWORD };
  let srv: ProcessServer;
  const creds = new Map<CredentialName, Record<string, string>>();
  /** Endpoint classes whose real route answers 404 to an anonymous call: not registered yet. */
  const missing = new Set<EndpointClass>();
  const bearer = (s: string) => ({ authorization: `Bearer ${s}` });

  before(async () => {
    const first = await startServerProcess(env);
    const expiring = await createApiKeyRecord(first, { scopes: ['admin'], expiresInDays: 1 });
    assert.equal(await first.stop(), 0);

    srv = await startServerProcess({ ...env, SVC_TEST_CLOCK_OFFSET_SECS: TWO_DAYS });
    for (const cls of ['search', 'admin', 'mcp', 'ingest'] as const) {
      if ((await request(cls, srv.url, {})).status === 404) missing.add(cls);
    }
    const admin = await login(srv, 'admin', ADMIN_PASSWORD);
    await createUser(srv, { username: 'matrix-user', password: 'matrix-user-password' });
    const disabled = await createApiKeyRecord(srv, { scopes: ['admin'] });
    const deleted = await createApiKeyRecord(srv, { scopes: ['admin'] });
    await call(srv, 'POST', `/api/admin/api-keys/${disabled.id}/disable`, { token: admin });
    await call(srv, 'DELETE', `/api/admin/api-keys/${deleted.id}`, { token: admin });
    creds.set('none', {});
    creds.set('unknown secret', bearer(UNKNOWN_SECRET));
    creds.set('standard key', bearer((await createApiKeyRecord(srv, { scopes: ['standard'] })).secret));
    creds.set('admin key', bearer((await createApiKeyRecord(srv, { scopes: ['admin'] })).secret));
    creds.set('expired key', bearer(expiring.secret));
    creds.set('disabled key', bearer(disabled.secret));
    creds.set('deleted key', bearer(deleted.secret));
    creds.set('ingest token', bearer(await createIngestToken(srv, { env: 'default' })));
    creds.set('user session', bearer(await login(srv, 'matrix-user', 'matrix-user-password')));
    creds.set('admin session', bearer(admin));
  });
  after(async () => {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has every real endpoint registered (search, admin, MCP, ingest)', () => {
    assert.deepEqual([...missing], [], `routes not registered yet: ${[...missing].join(', ')}`);
  });

  it('lets sessions use /mcp while no MCP-scoped key exists, and refuses keys without the MCP scope and anonymous calls', async () => {
    if (missing.has('mcp')) return;
    for (const [name, expected] of Object.entries(EXPECTED_MCP_BEFORE_ANY_MCP_KEY)) {
      assert.equal(
        (await request('mcp', srv.url, creds.get(name as CredentialName)!)).status,
        expected,
        `${name} on POST /mcp before any MCP key`,
      );
    }
  });

  describe('once an MCP-scoped key exists', () => {
    before(async () => {
      creds.set('MCP key', bearer((await createApiKeyRecord(srv, { scopes: ['mcp'] })).secret));
    });

    for (const [name, row] of Object.entries(EXPECTED) as [CredentialName, Record<EndpointClass, number>][]) {
      for (const [cls, expected] of Object.entries(row) as [EndpointClass, number][]) {
        it(`answers ${expected} to ${name} on ${cls}`, async (t) => {
          if (missing.has(cls)) return t.skip(`the real ${cls} route is not registered yet`);
          const res = await request(cls, srv.url, creds.get(name)!);
          const body = await res.text();
          assert.equal(res.status, expected, `${name} on ${cls}: ${body.slice(0, 300)}`);
          if (expected === 401) assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="svc"');
          if (expected === 401 || expected === 403)
            assert.match(JSON.parse(body).error.code, /credentials|session|scope/);
        });
      }
    }
  });

  it('says why a key is rejected: expired, disabled, or not valid (deleted, unknown)', async () => {
    const code = async (name: CredentialName) =>
      ((await (await request('admin', srv.url, creds.get(name)!)).json()) as { error: { code: string } }).error.code;
    assert.equal(await code('expired key'), 'expired_credentials');
    assert.equal(await code('disabled key'), 'disabled_credentials');
    assert.equal(await code('deleted key'), 'invalid_credentials');
    assert.equal(await code('unknown secret'), 'invalid_credentials');
  });
});
