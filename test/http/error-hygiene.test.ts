import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startServer, type Server } from '../../src/server.js';
import { adminToken, call, createApiKey, createUser, login, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';

/**
 * A real svc whose process log is kept (info and up), to check what it writes: startTestServer's
 * logger is silent. The LLM provider is configured but never called.
 */
describe('what errors show and log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const lines: { level: number; [k: string]: unknown }[] = [];
  let srv: Server;
  let admin: string;

  before(async () => {
    const config = loadConfig({
      SVC_LISTEN: '127.0.0.1:0',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_LLM_URL: 'http://llm.internal.example:8080/v1',
    });
    srv = await startServer(config, pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) }));
    admin = await adminToken(srv);
  });
  after(async () => {
    await srv.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const errorLines = () => lines.filter((l) => l.level >= 50);

  it('answers a session cookie that is not valid percent-encoding with 401 and the JSON error, logging no error', async () => {
    const before = errorLines().length;
    const res = await fetch(`${srv.url}/api/auth/me`, { headers: { cookie: 'svc_session=%E0%A4%A' } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="svc"');
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'invalid_credentials');
    assert.equal(errorLines().length, before);
  });

  it('logs an internal error with the path of the request, never its query string', async () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the same object below
    const status = srv.deps.llm.status;
    // a fault injected where no input can cause one: what is under test is the edge's logging
    srv.deps.llm.status = () => {
      throw new Error('injected fault');
    };
    try {
      const res = await fetch(`${srv.url}/api/llm?q=secret-search-text`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      assert.equal(res.status, 500);
    } finally {
      srv.deps.llm.status = status;
    }
    const logged = errorLines().find((l) => l.msg === 'request failed');
    assert.ok(logged, 'the failure is logged');
    assert.equal(logged.path, '/api/llm');
    assert.ok(!JSON.stringify(lines).includes('secret-search-text'), 'the query string is not in the log');
  });

  it("shows the LLM provider's host to admins only", async () => {
    const reader = await createApiKey(srv, { scopes: ['standard'] });
    const asUser = (await call(srv, 'GET', '/api/llm', { token: reader })) as {
      configured: boolean;
      provider?: string;
      model?: string;
    };
    assert.equal(asUser.configured, true);
    assert.equal(asUser.provider, undefined);
    assert.ok(!JSON.stringify(asUser).includes('llm.internal.example'));
    const asAdmin = (await call(srv, 'GET', '/api/llm', { token: admin })) as { provider?: string };
    assert.equal(asAdmin.provider, 'llm.internal.example:8080');
  });

  describe('validation errors never quote a secret', () => {
    const post = async (path: string, body: unknown, token?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, text: await res.text() };
    };

    it('names a too-short new password without quoting it', async () => {
      const r = await post('/api/admin/users', { username: 'echo-test', password: 'hunter2-pw' }, admin);
      assert.equal(r.status, 400);
      assert.match(r.text, /password: must be at least 12 characters/);
      assert.ok(!r.text.includes('hunter2-pw'), r.text);
    });

    it('names a login password of the wrong type without quoting it', async () => {
      for (const password of [['hunter2-in-a-list'], { value: 'hunter2-in-an-object' }, 123456789]) {
        const r = await post('/api/auth/login', { username: 'admin', password });
        assert.equal(r.status, 400);
        assert.match(r.text, /"field":"password"/);
        for (const secret of ['hunter2-in-a-list', 'hunter2-in-an-object', '123456789'])
          assert.ok(!r.text.includes(secret), r.text);
      }
    });

    it('never quotes a whole body that is not an object, nor a webhook URL (a Slack hook is its own credential)', async () => {
      const body = await post('/api/auth/login', 'my-password-as-the-body');
      assert.equal(body.status, 400);
      assert.ok(!body.text.includes('my-password-as-the-body'), body.text);
      const user = await createUser(srv, { username: 'hook-maker', password: 'hook-maker-password' }).then(() =>
        login(srv, 'hook-maker', 'hook-maker-password'),
      );
      const hook = await post(
        '/api/monitors',
        {
          name: 'm',
          query: 'x',
          env: 'default',
          every: '5m',
          window: '5m',
          condition: { threshold: 'count > 0' },
          cooldown: '1h',
          destinations: [{ webhook: ['https://hooks.example/T0KEN'] }],
          enabled: false,
        },
        user,
      );
      assert.equal(hook.status, 400);
      assert.match(hook.text, /destinations\.0\.webhook/);
      assert.ok(!hook.text.includes('T0KEN'), hook.text);
    });

    it('still quotes the bad value of an ordinary field', async () => {
      const r = await post(
        '/api/admin/users',
        { username: 'echo-role', password: 'long-enough-password', role: 'root' },
        admin,
      );
      assert.equal(r.status, 400);
      assert.equal(
        (JSON.parse(r.text) as { error: { message: string } }).error.message,
        'role: want "admin" or "user" (got "root")',
      );
    });
  });
});
