import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../helpers/process.js';
import { call, login } from '../helpers/auth.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every place `needle` occurs in the data dir (raw bytes, any file) or in the process output. */
function findings(files: { path: string; data: Buffer }[], output: string, needle: string): string[] {
  const hits = files.filter((f) => f.data.includes(needle)).map((f) => f.path);
  if (output.includes(needle)) hits.push('(process output)');
  return hits;
}

describe('secrets at rest in a real svc process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  const adminPassword = 'Adm1n-secret-password';
  const userPassword = 'Us3r-secret-password';
  const secrets: Record<string, string> = {};
  const names = ['key-name-alpha', 'key-name-mcp', 'token-name-shipper', 'user-name-zelda', 'env-name-payments'];
  let files: { path: string; data: Buffer }[] = [];
  let output = '';

  before(async () => {
    const srv = await startServerProcess({
      SVC_DATA_DIR: dir,
      SVC_ADMIN_PASSWORD: adminPassword,
      SVC_LOG_LEVEL: 'debug',
    });
    try {
      const admin = await login(srv, 'admin', adminPassword);
      secrets['admin session'] = admin;
      // the helpers log in as admin with the test password: use explicit calls with this server's password
      const k1 = (await call(srv, 'POST', '/api/admin/api-keys', {
        token: admin,
        body: { name: 'key-name-alpha', scopes: ['admin'] },
        expect: 201,
      })) as { secret: string };
      const k2 = (await call(srv, 'POST', '/api/admin/api-keys', {
        token: admin,
        body: { name: 'key-name-mcp', scopes: ['mcp'], expiresInDays: 5 },
        expect: 201,
      })) as { secret: string };
      await call(srv, 'POST', '/api/admin/envs', { token: admin, body: { name: 'env-name-payments' }, expect: 201 });
      const t = (await call(srv, 'POST', '/api/admin/ingest-tokens', {
        token: admin,
        body: { name: 'token-name-shipper', env: 'env-name-payments' },
        expect: 201,
      })) as { secret: string };
      await call(srv, 'POST', '/api/admin/users', {
        token: admin,
        body: { username: 'user-name-zelda', password: userPassword },
        expect: 201,
      });
      secrets['standard+admin key'] = k1.secret;
      secrets['MCP key'] = k2.secret;
      secrets['ingest token'] = t.secret;
      secrets['admin password'] = adminPassword;
      secrets['user password'] = userPassword;
      secrets['user session'] = await login(srv, 'user-name-zelda', userPassword);
      // use every credential, including a failed login with the password typed as user name
      await call(srv, 'GET', '/api/admin/api-keys', { token: k1.secret });
      const ingest = await fetch(`${srv.url}/api/ingest?env=env-name-payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.secret}`, 'content-type': 'application/x-ndjson' },
        body: '{"message":"hello from the secrets test"}\n',
      });
      assert.equal(ingest.status, 200, await ingest.text());
      await fetch(`${srv.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: userPassword, password: 'x' }),
      });
      await fetch(`${srv.url}/api/auth/me`, { headers: { authorization: `Bearer ${k2.secret}` } });
      await fetch(`${srv.url}/api/auth/me`, {
        headers: { authorization: 'Bearer svk_unknownUnknownUnknownUnknownUnknownUnknow' },
      });
    } finally {
      assert.equal(await srv.stop(), 0);
      output = srv.output();
    }
    files = filesUnder(dir).map((path) => ({ path, data: readFileSync(path) }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('wrote a control plane, a write-ahead log or blocks, and logs to scan', () => {
    assert.ok(files.some((f) => f.path.endsWith('control.json')));
    const events = files.filter((f) => f.path.startsWith(join(dir, 'wal')) || f.path.startsWith(join(dir, 'blocks')));
    assert.ok(events.length > 0, `no write-ahead log or block files among:\n${files.map((f) => f.path).join('\n')}`);
    assert.ok(output.length > 0);
  });

  for (const what of [
    'standard+admin key',
    'MCP key',
    'ingest token',
    'admin password',
    'user password',
    'admin session',
    'user session',
  ]) {
    it(`finds the ${what} nowhere in clear text: not in any file of the data dir, not in the logs`, () => {
      const secret = secrets[what];
      assert.ok(secret && secret.length >= 12);
      assert.deepEqual(findings(files, output, secret), []);
      // nor the secret part alone, without its prefix
      if (/^sv[ki]_/.test(secret)) assert.deepEqual(findings(files, output, secret.slice(4)), []);
    });
  }

  it('finds no user, key, token or environment name in the encrypted control-plane file', () => {
    const control = files.find((f) => f.path.endsWith('control.json'))!.data.toString('utf8');
    for (const name of [...names, 'admin', 'scrypt', 'standard']) assert.equal(control.includes(name), false, name);
    assert.match(control, /"alg":"AES-256-GCM"/);
  });
});
