import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKeyRecord, createIngestToken, createUser, login } from '../helpers/auth.js';
import { buildApp } from '../../src/http/app.js';
import {
  EXPECTED,
  EXPECTED_MCP_BEFORE_ANY_MCP_KEY,
  UNKNOWN_SECRET,
  type CredentialName,
  type EndpointClass,
} from './access-matrix.fixtures.js';

/**
 * The access rules on probe routes, one per access class, registered on a second app instance built
 * from the running server's own dependencies: independent of the search, MCP and ingest routes.
 */
const PROBES: Record<EndpointClass, { method: 'GET' | 'POST'; url: string }> = {
  search: { method: 'GET', url: '/probe/standard' },
  admin: { method: 'GET', url: '/probe/admin' },
  mcp: { method: 'POST', url: '/probe/mcp' },
  ingest: { method: 'POST', url: '/probe/ingest' },
};

describe('access rules on probe routes of every access class', () => {
  let srv: TestServer;
  let app: FastifyInstance;
  const creds = new Map<CredentialName, Record<string, string>>();
  const bearer = (s: string) => ({ authorization: `Bearer ${s}` });

  const status = async (cls: EndpointClass, headers: Record<string, string>) => {
    const res = await app.inject({ method: PROBES[cls].method, url: PROBES[cls].url, headers });
    return res.statusCode;
  };

  before(async () => {
    srv = await startTestServer();
    app = await buildApp(srv.deps);
    const echo = async (request: { principal?: { kind: string } }) => ({ kind: request.principal?.kind ?? null });
    app.get('/probe/public', { config: { access: 'public' } }, echo);
    app.get('/probe/authenticated', { config: { access: 'authenticated' } }, echo);
    app.get('/probe/default', {}, echo);
    app.get('/probe/standard', { config: { access: 'standard' } }, echo);
    app.get('/probe/admin', { config: { access: 'admin' } }, echo);
    app.post('/probe/mcp', { config: { access: 'mcp' } }, echo);
    app.post('/probe/ingest', { config: { access: 'ingest' } }, echo);
    await app.ready();

    await createUser(srv, { username: 'probe-user', password: 'probe-user-password' });
    const disabled = await createApiKeyRecord(srv, { scopes: ['admin', 'mcp'] });
    const deleted = await createApiKeyRecord(srv, { scopes: ['admin', 'mcp'] });
    const adminTok = await adminToken(srv);
    await call(srv, 'POST', `/api/admin/api-keys/${disabled.id}/disable`, { token: adminTok });
    await call(srv, 'DELETE', `/api/admin/api-keys/${deleted.id}`, { token: adminTok });
    creds.set('none', {});
    creds.set('unknown secret', bearer(UNKNOWN_SECRET));
    creds.set('standard key', bearer((await createApiKeyRecord(srv, { scopes: ['standard'] })).secret));
    creds.set('admin key', bearer((await createApiKeyRecord(srv, { scopes: ['admin'] })).secret));
    creds.set('disabled key', bearer(disabled.secret));
    creds.set('deleted key', bearer(deleted.secret));
    creds.set('ingest token', bearer(await createIngestToken(srv, { env: 'default' })));
    creds.set('user session', bearer(await login(srv, 'probe-user', 'probe-user-password')));
    creds.set('admin session', bearer(adminTok));
  });
  after(async () => {
    await app.close();
    await srv.close();
  });

  it('lets anyone call a public route, without a principal', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/public' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { kind: null });
  });

  it('treats a route without an access class as authenticated', async () => {
    assert.equal((await app.inject({ method: 'GET', url: '/probe/default' })).statusCode, 401);
    assert.equal(
      (await app.inject({ method: 'GET', url: '/probe/default', headers: creds.get('user session') })).statusCode,
      200,
    );
    assert.equal(
      (await app.inject({ method: 'GET', url: '/probe/default', headers: creds.get('ingest token') })).statusCode,
      403,
    );
  });

  it('sets request.principal for the handler', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/ingest', headers: creds.get('ingest token') });
    assert.deepEqual(res.json(), { kind: 'ingest_token' });
  });

  it('lets a logged-in user use /mcp before any MCP key exists, never anonymous', async () => {
    // the disabled key has MCP scope: remove it to get a control plane without MCP keys
    const keys = srv.deps.auth.apiKeys.list().filter((k) => k.scopes.includes('mcp'));
    const adminTok = await adminToken(srv);
    for (const k of keys) await call(srv, 'DELETE', `/api/admin/api-keys/${k.id}`, { token: adminTok });
    assert.equal(srv.deps.auth.mcpKeyExists(), false);
    for (const [name, expected] of Object.entries(EXPECTED_MCP_BEFORE_ANY_MCP_KEY)) {
      assert.equal(
        await status('mcp', creds.get(name as CredentialName)!),
        expected,
        `${name} on /mcp before any MCP key`,
      );
    }
    // restore a disabled MCP key for the matrix below
    const disabled = await createApiKeyRecord(srv, { scopes: ['admin', 'mcp'] });
    await call(srv, 'POST', `/api/admin/api-keys/${disabled.id}/disable`, { token: adminTok });
    creds.set('disabled key', bearer(disabled.secret));
  });

  describe('after an MCP key exists', () => {
    before(async () => {
      creds.set('MCP key', bearer((await createApiKeyRecord(srv, { scopes: ['mcp'] })).secret));
    });

    for (const [name, row] of Object.entries(EXPECTED) as [CredentialName, Record<EndpointClass, number>][]) {
      // an expired key needs the clock moved past its expiry: a restart, in access-matrix.test.ts
      if (name === 'expired key') continue;
      for (const [cls, expected] of Object.entries(row) as [EndpointClass, number][]) {
        it(`answers ${expected} to ${name} on a ${cls} route`, async () => {
          assert.equal(await status(cls, creds.get(name)!), expected);
        });
      }
    }
  });

  it('answers 401 in the JSON error shape with WWW-Authenticate, and 403 naming the missing scope', async () => {
    const r401 = await app.inject({ method: 'GET', url: '/probe/admin' });
    assert.equal(r401.headers['www-authenticate'], 'Bearer realm="svc"');
    assert.equal(r401.json().error.code, 'missing_credentials');
    const r403 = await app.inject({ method: 'GET', url: '/probe/admin', headers: creds.get('standard key') });
    assert.equal(r403.json().error.code, 'insufficient_scope');
    assert.match(r403.json().error.message, /Admin API scope/);
  });
});
