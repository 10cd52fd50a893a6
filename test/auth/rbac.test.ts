import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOW_ALL, type Principal, type Scope } from '../../src/auth/principal.js';
import { canRead, canUseTool, hasScope, resolveIngestTarget, resolveSearchTargets } from '../../src/auth/rbac.js';

const key = (scopes: Scope[], allow = { envs: ['*'], indexes: ['*'], tools: ['*'] }): Principal => ({
  kind: 'api_key',
  id: 'k',
  name: 'k',
  scopes: new Set(scopes),
  allow,
  createdBy: 'admin',
});
const token = (env: string, index?: string): Principal => ({
  kind: 'ingest_token',
  id: 't',
  name: 't',
  pin: index ? { env, index } : { env },
});
const ENVS = ['default', 'prod', 'staging', '_system'];

describe('RBAC decisions', () => {
  it('grants standard to admin keys, never any scope to ingest tokens', () => {
    assert.equal(hasScope(key(['admin']), 'standard'), true);
    assert.equal(hasScope(key(['mcp']), 'standard'), false);
    assert.equal(hasScope(token('prod'), 'standard'), false);
  });

  it('reads only allowed envs; _system only for admins', () => {
    const scoped = key(['standard'], { envs: ['prod'], indexes: ['*'], tools: [] });
    assert.equal(canRead(scoped, 'prod'), true);
    assert.equal(canRead(scoped, 'staging'), false);
    assert.equal(canRead(key(['standard']), '_system'), false);
    assert.equal(canRead(key(['admin']), '_system'), true);
    assert.equal(canRead(token('prod'), 'prod'), false);
  });

  it('narrows env=* to allowed, non-reserved envs and throws access_denied for a named forbidden one', () => {
    const scoped = key(['standard'], { envs: ['prod', 'staging'], indexes: ['web'], tools: [] });
    assert.deepEqual(resolveSearchTargets(scoped, { env: '*' }, ENVS), { envs: ['prod', 'staging'], indexes: ['web'] });
    assert.deepEqual(resolveSearchTargets(key(['admin']), { env: '*' }, ENVS), {
      envs: ['default', 'prod', 'staging'],
      indexes: null,
    });
    assert.throws(() => resolveSearchTargets(scoped, { env: 'default' }, ENVS), { code: 'access_denied' });
    assert.throws(() => resolveSearchTargets(scoped, { env: 'prod', index: 'db' }, ENVS), { code: 'access_denied' });
  });

  it('hides tools outside the MCP allowlist', () => {
    assert.equal(canUseTool(key(['mcp'], { envs: ['*'], indexes: ['*'], tools: ['search'] }), 'search'), true);
    assert.equal(canUseTool(key(['mcp'], { envs: ['*'], indexes: ['*'], tools: ['search'] }), 'list_indexes'), false);
    assert.equal(canUseTool(key(['mcp'], ALLOW_ALL), 'anything'), true);
  });

  it('routes ingest by the token pin; a request may only narrow an unpinned index', () => {
    assert.deepEqual(resolveIngestTarget(token('prod'), { index: 'web' }, 'main'), { env: 'prod', index: 'web' });
    assert.deepEqual(resolveIngestTarget(token('prod'), {}, 'main'), { env: 'prod', index: 'main' });
    assert.throws(() => resolveIngestTarget(token('prod', 'web'), { index: 'db' }, 'main'), { code: 'access_denied' });
    assert.throws(() => resolveIngestTarget(token('prod'), { env: 'staging' }, 'main'), { code: 'access_denied' });
    assert.throws(() => resolveIngestTarget(token('prod'), { index: '_hidden' }, 'main'), { code: 'reserved_name' });
    assert.throws(() => resolveIngestTarget(key(['admin']), {}, 'main'), { code: 'insufficient_scope' });
  });
});
