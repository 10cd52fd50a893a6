import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scrypt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suiteServer, startTestServer, type TestServer } from '../helpers/server.js';
import { call, createUser, login } from '../helpers/auth.js';
import { hashPassword, needsRehash, verifyPassword } from '../../src/auth/passwords.js';

/** A hash at a cost below OWASP's parameters, as older svc versions stored them. */
async function oldHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = (await promisify(scrypt)(password, salt, 32)) as Buffer; // Node's default: N=2^14, r=8, p=1
  return `scrypt$16384$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

describe('password hashes', () => {
  it('makes cheap hashes only under SVC_TEST_WEAK_PASSWORD_HASHES, and moves them to the real cost at the next login', async () => {
    const weak = await hashPassword('correct horse battery', { fips: false, weak: true });
    assert.match(weak, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse battery', weak), true);
    assert.equal(needsRehash(weak, { fips: false }), true);
    assert.equal(needsRehash(weak, { fips: false, weak: true }), false);
  });

  it("hashes with scrypt at N=2^17, r=8, p=1 (128 MiB, over Node's default maxmem) and verifies it", async () => {
    const h = await hashPassword('correct horse battery', { fips: false });
    assert.match(h, /^scrypt\$131072\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse battery', h), true);
    assert.equal(await verifyPassword('correct horse batterY', h), false);
    assert.equal(needsRehash(h, { fips: false }), false);
  });

  it('asks to rehash any other algorithm or cost, by the rules of the mode (FIPS: PBKDF2-SHA256 at 600,000 iterations)', async () => {
    const old = await oldHash('pw');
    assert.equal(await verifyPassword('pw', old), true);
    assert.equal(needsRehash(old, { fips: false }), true);
    const pbkdf2 = await hashPassword('pw', { fips: true });
    assert.match(pbkdf2, /^pbkdf2-sha256\$600000\$/);
    assert.equal(needsRehash(pbkdf2, { fips: true }), false);
    assert.equal(needsRehash(pbkdf2.replace('$600000$', '$310000$'), { fips: true }), true);
    assert.equal(needsRehash(old, { fips: true }), true);
    assert.equal(needsRehash(pbkdf2, { fips: false }), true);
  });

  it('refuses a stored scrypt hash that would take more than 1 GiB, as malformed', async () => {
    assert.equal(await verifyPassword('pw', `scrypt$${2 ** 22}$8$1$AAAA$AAAA`), false);
  });
});

describe('passwords at login and on change', () => {
  let srv: TestServer;
  let admin: string;
  // the real cost, as production runs it (the other suites make cheap hashes)
  suiteServer((s, a) => ([srv, admin] = [s, a]), { SVC_TEST_WEAK_PASSWORD_HASHES: '0' });

  it('refuses a new password under 12 characters with 400 naming the field, on create and on change', async () => {
    const res = (await call(srv, 'POST', '/api/admin/users', {
      token: admin,
      body: { username: 'shorty', password: 'eleven-char' },
      expect: 400,
    })) as { error: { field: string; message: string } };
    assert.equal(res.error.field, 'password');
    assert.match(res.error.message, /at least 12 characters/);
    const id = await createUser(srv, { username: 'twelve', password: 'twelve-chars' });
    const patched = (await call(srv, 'PATCH', `/api/admin/users/${id}`, {
      token: admin,
      body: { password: 'eleven-char' },
      expect: 400,
    })) as { error: { field: string } };
    assert.equal(patched.error.field, 'password');
  });

  it('keeps an existing shorter password working, and rehashes an old-cost hash at the next login without ending sessions', async () => {
    const id = await createUser(srv, { username: 'legacy', password: 'a-long-enough-password' });
    // as a document written by an older svc holds it: 8 characters, hashed at the old cost
    const legacy = await oldHash('old-pass');
    await srv.deps.control.mutate((doc) => {
      doc.users.find((u) => u.id === id)!.passwordHash = legacy;
    });
    const first = await login(srv, 'legacy', 'old-pass');
    const stored = srv.deps.control.doc.users.find((u) => u.id === id)!.passwordHash;
    assert.notEqual(stored, legacy);
    assert.match(stored, /^scrypt\$131072\$8\$1\$/);
    assert.equal(await verifyPassword('old-pass', stored), true);
    // the same password, so the session just made lives on, and the next login works
    await call(srv, 'GET', '/api/auth/me', { token: first });
    await login(srv, 'legacy', 'old-pass');
  });

  it('refuses to start with an SVC_ADMIN_PASSWORD under 12 characters when it would create the admin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
    try {
      await assert.rejects(
        startTestServer({ SVC_ADMIN_PASSWORD: 'short-pw' }, { dataDir }),
        /SVC_ADMIN_PASSWORD: must be at least 12 characters/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
