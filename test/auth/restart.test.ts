import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServerProcessToExit, startServerProcess } from '../helpers/process.js';

async function loginStatus(
  url: string,
  username: string,
  password: string,
): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { token?: string };
  return { status: res.status, token: body.token };
}

async function meStatus(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

describe('start-up and restarts of a real svc process', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-restart-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates admin with a generated password printed once, and keys with mode 0600', async () => {
    const first = await startServerProcess({ SVC_DATA_DIR: dir });
    const m = /created user "admin" with password (\S+)/.exec(first.output());
    assert.ok(m, first.output());
    assert.equal((await loginStatus(first.url, 'admin', m[1])).status, 200);
    assert.equal(await first.stop(), 0);
    for (const f of ['control.key', 'jwt.secret', 'control.json'])
      assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    const second = await startServerProcess({ SVC_DATA_DIR: dir });
    assert.doesNotMatch(second.output(), /password/);
    assert.equal((await loginStatus(second.url, 'admin', m[1])).status, 200);
    await second.stop();
  });

  it('SVC_ADMIN_RESET=1 with SVC_ADMIN_PASSWORD resets the admin password and revokes every session', async () => {
    const first = await startServerProcess({ SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'first-password' });
    const old = (await loginStatus(first.url, 'admin', 'first-password')).token!;
    assert.equal(await meStatus(first.url, old), 200);
    await first.stop();

    const reset = await startServerProcess({
      SVC_DATA_DIR: dir,
      SVC_ADMIN_PASSWORD: 'second-password',
      SVC_ADMIN_RESET: '1',
    });
    assert.match(reset.output(), /unset SVC_ADMIN_RESET/);
    assert.equal(await meStatus(reset.url, old), 401);
    assert.equal((await loginStatus(reset.url, 'admin', 'first-password')).status, 401);
    const fresh = (await loginStatus(reset.url, 'admin', 'second-password')).token!;
    await reset.stop();

    // without the reset variable, SVC_ADMIN_PASSWORD no longer changes anything and sessions live on
    const after = await startServerProcess({ SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'third-password' });
    assert.equal(await meStatus(after.url, fresh), 200);
    assert.equal((await loginStatus(after.url, 'admin', 'second-password')).status, 200);
    assert.equal((await loginStatus(after.url, 'admin', 'third-password')).status, 401);
    await after.stop();
  });

  it('SVC_ADMIN_RESET=1 without SVC_ADMIN_PASSWORD stops start-up', async () => {
    await (await startServerProcess({ SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'first-password' })).stop();
    const res = await runServerProcessToExit({ SVC_DATA_DIR: dir, SVC_ADMIN_RESET: '1' });
    assert.notEqual(res.code, 0);
    assert.match(res.output, /SVC_ADMIN_RESET=1 needs SVC_ADMIN_PASSWORD/);
  });

  it('a regenerated JWT secret makes existing sessions 401', async () => {
    const env = {
      SVC_DATA_DIR: dir,
      SVC_ADMIN_PASSWORD: 'admin-password',
      SVC_JWT_SECRET_PATH: join(dir, 'shared', 'jwt.secret'),
    };
    const first = await startServerProcess(env);
    const token = (await loginStatus(first.url, 'admin', 'admin-password')).token!;
    await first.stop();

    // same secret: the session survives a restart
    const same = await startServerProcess(env);
    assert.equal(await meStatus(same.url, token), 200);
    await same.stop();

    rmSync(env.SVC_JWT_SECRET_PATH);
    const regenerated = await startServerProcess(env);
    const res = await fetch(`${regenerated.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_credentials');
    assert.equal((await loginStatus(regenerated.url, 'admin', 'admin-password')).status, 200);
    await regenerated.stop();
  });

  it('a wrong control key stops start-up with a clear message and leaves the control plane untouched', async () => {
    await (await startServerProcess({ SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'admin-password' })).stop();
    const controlFile = join(dir, 'control.json');
    const before = readFileSync(controlFile);
    const mtime = statSync(controlFile).mtimeMs;
    const wrongKey = join(dir, 'other.key');
    writeFileSync(wrongKey, randomBytes(32).toString('base64'), { mode: 0o600 });

    const res = await runServerProcessToExit({ SVC_DATA_DIR: dir, SVC_CONTROL_KEY_PATH: wrongKey });
    assert.notEqual(res.code, 0);
    assert.match(res.output, /cannot decrypt the control plane/);
    assert.match(res.output, /control key/);
    assert.deepEqual(readFileSync(controlFile), before);
    assert.equal(statSync(controlFile).mtimeMs, mtime);

    // the right key still opens it
    const ok = await startServerProcess({ SVC_DATA_DIR: dir });
    assert.equal((await loginStatus(ok.url, 'admin', 'admin-password')).status, 200);
    await ok.stop();
  });

  it('a missing control key next to an existing control plane stops start-up without writing a new key', async () => {
    await (await startServerProcess({ SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'admin-password' })).stop();
    const missing = join(dir, 'nowhere.key');
    const res = await runServerProcessToExit({ SVC_DATA_DIR: dir, SVC_CONTROL_KEY_PATH: missing });
    assert.notEqual(res.code, 0);
    assert.match(res.output, /missing control key/);
    assert.throws(() => statSync(missing));
  });

  it('SVC_FIPS=1 stops start-up with a non-zero exit and says which provider and settings are missing', async () => {
    const res = await runServerProcessToExit({
      SVC_DATA_DIR: dir,
      SVC_FIPS: '1',
      SVC_ADMIN_PASSWORD: 'admin-password',
    });
    assert.notEqual(res.code, 0);
    assert.match(res.output, /SVC_FIPS=1 but OpenSSL's FIPS provider cannot be used/);
    assert.match(res.output, /OPENSSL_CONF/);
    assert.match(res.output, /OPENSSL_MODULES/);
    // nothing was created before the self-test failed
    assert.throws(() => statSync(join(dir, 'control.json')));
  });
});
