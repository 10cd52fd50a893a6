import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/clock/clock.js';
import { hashPassword, unusableHash, verifyPassword } from '../../src/auth/passwords.js';
import { LoginRateLimiter } from '../../src/auth/rate-limit.js';
import { SecretHasher, newSecret, randomBase62 } from '../../src/auth/secrets.js';
import { SessionSigner } from '../../src/auth/sessions.js';
import { enforceAccess } from '../../src/http/auth-hook.js';
import { SvcError } from '../../src/errors/svc-error.js';
import { ALLOW_ALL, type Principal, type Scope } from '../../src/auth/principal.js';

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse', { fips: false });
    const b = await hashPassword('correct horse', { fips: false });
    assert.match(a, /^scrypt\$131072\$8\$1\$/);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('correct horse', a), true);
    assert.equal(await verifyPassword('correct horsE', a), false);
  });

  it('hashes with PBKDF2-SHA256 in FIPS mode, and verifies it', async () => {
    const h = await hashPassword('correct horse', { fips: true });
    assert.match(h, /^pbkdf2-sha256\$600000\$/);
    assert.equal(await verifyPassword('correct horse', h), true);
    assert.equal(await verifyPassword('wrong', h), false);
  });

  it('never matches the unusable hash or a malformed one', async () => {
    assert.equal(await verifyPassword('', unusableHash({ fips: false })), false);
    assert.equal(await verifyPassword('x', 'md5$abc'), false);
  });
});

describe('secrets', () => {
  it('makes svk_ and svi_ secrets of 43 base62 characters, all different', () => {
    const seen = new Set(Array.from({ length: 200 }, () => newSecret('svk_')));
    assert.equal(seen.size, 200);
    for (const s of seen) assert.match(s, /^svk_[0-9A-Za-z]{43}$/);
    assert.match(newSecret('svi_'), /^svi_[0-9A-Za-z]{43}$/);
    assert.equal(randomBase62(18).length, 25);
  });

  it('HMACs under a key derived from the control key: another control key gives another HMAC', () => {
    const secret = newSecret('svk_');
    const key = randomBytes(32);
    const h = new SecretHasher(key).hmac(secret);
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(new SecretHasher(Buffer.from(key)).matches(secret, h), true);
    assert.equal(new SecretHasher(randomBytes(32)).matches(secret, h), false);
    assert.equal(new SecretHasher(key).matches(secret + 'x', h), false);
  });
});

describe('sessions', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
  const signer = new SessionSigner(randomBytes(32), clock, 1);

  it('verifies its own tokens and expires them after the TTL by the injectable clock', async () => {
    const { token, claims } = await signer.issue('user-1', 3);
    assert.deepEqual(await signer.verify(token), claims);
    clock.advance(3_600_000 + 1000);
    await assert.rejects(signer.verify(token), (e: unknown) => e instanceof SvcError && e.code === 'session_expired');
  });

  it('rejects tokens signed with another secret (a regenerated JWT secret)', async () => {
    const other = new SessionSigner(randomBytes(32), clock, 1);
    const { token } = await other.issue('user-1', 0);
    await assert.rejects(
      signer.verify(token),
      (e: unknown) => e instanceof SvcError && e.code === 'invalid_credentials',
    );
  });

  it('rejects unsigned (alg none) tokens', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(clock.now() / 1000);
    const token = `${b64({ alg: 'none' })}.${b64({ sub: 'user-1', jti: 'x', sep: 0, iss: 'svc', exp: now + 60 })}.`;
    await assert.rejects(
      signer.verify(token),
      (e: unknown) => e instanceof SvcError && e.code === 'invalid_credentials',
    );
  });
});

describe('login rate limit', () => {
  it('refuses after the allowed failures until the window passes, and a success clears the count', () => {
    const clock = new ManualClock(0);
    const rl = new LoginRateLimiter(clock, { maxFailures: 3, windowMs: 60_000 });
    const k = ['u:alice|a:1.2.3.4'];
    for (let i = 0; i < 3; i++) {
      rl.check(k);
      rl.fail(k);
    }
    assert.throws(
      () => rl.check(k),
      (e: unknown) => e instanceof SvcError && e.code === 'rate_limited' && e.retryAfterSecs === 60,
    );
    rl.check(['u:alice|a:5.6.7.8']);
    clock.advance(60_000);
    rl.check(k);
    rl.fail(k);
    rl.succeed(k);
    rl.fail(k);
    rl.fail(k);
    rl.check(k);
  });
});

describe('access decisions (enforceAccess)', () => {
  const key = (...scopes: Scope[]): Principal => ({
    kind: 'api_key',
    id: 'k',
    name: 'k',
    scopes: new Set(scopes),
    allow: ALLOW_ALL,
    createdBy: 'admin',
  });
  const user = (role: 'admin' | 'user'): Principal => ({
    kind: 'user',
    id: 'u',
    name: 'u',
    role,
    scopes: new Set<Scope>(role === 'admin' ? ['admin', 'standard'] : ['standard']),
    allow: ALLOW_ALL,
    sessionId: 's',
  });
  const token: Principal = { kind: 'ingest_token', id: 't', name: 't', pin: { env: 'default' } };
  const allowed = (access: Parameters<typeof enforceAccess>[0], p: Principal, mcpKeyExists = true) => {
    try {
      enforceAccess(access, p, mcpKeyExists);
      return true;
    } catch (e) {
      assert.equal((e as SvcError).code, 'insufficient_scope');
      return false;
    }
  };

  it('lets an Admin API key through standard routes (admin implies standard)', () =>
    assert.equal(allowed('standard', key('admin')), true));
  it('keeps an MCP-only key off the REST API', () => assert.equal(allowed('standard', key('mcp')), false));
  it('keeps keys without the MCP scope off /mcp', () => assert.equal(allowed('mcp', key('admin', 'standard')), false));
  it('lets a session use /mcp only while no MCP key exists', () => {
    assert.equal(allowed('mcp', user('user'), false), true);
    assert.equal(allowed('mcp', user('admin'), true), false);
  });
  it('keeps ingest tokens to ingest routes', () => {
    assert.equal(allowed('ingest', token), true);
    for (const a of ['standard', 'admin', 'mcp', 'authenticated'] as const) assert.equal(allowed(a, token), false);
    assert.equal(allowed('ingest', key('admin')), false);
  });
});
