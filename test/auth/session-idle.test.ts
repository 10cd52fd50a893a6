import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { login, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';

/**
 * Time moves by restarting svc on the same data dir with SVC_TEST_CLOCK_OFFSET_SECS: the idle
 * timeout must hold across restarts (the last use is shared through the control plane).
 */
describe('session idle timeout (SVC_SESSION_IDLE_SECS)', () => {
  let dataDir: string;
  before(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-idle-'))));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The status of /api/auth/me with `token` on a svc whose clock is `offsetSecs` ahead. */
  async function meAt(
    offsetSecs: number,
    token: string | undefined,
    env: Record<string, string> = {},
  ): Promise<{ status: number; code?: string; token: string }> {
    const srv = await startTestServer(
      { SVC_SESSION_IDLE_SECS: '3600', SVC_TEST_CLOCK_OFFSET_SECS: String(offsetSecs), ...env },
      { dataDir },
    );
    try {
      const t = token ?? (await login(srv, 'admin', TEST_ADMIN_PASSWORD));
      const res = await fetch(`${srv.url}/api/auth/me`, { headers: { authorization: `Bearer ${t}` } });
      const body = (await res.json()) as { error?: { code: string } };
      return { status: res.status, code: body.error?.code, token: t };
    } finally {
      await srv.close();
    }
  }

  it('keeps a session that is used within the timeout, sliding it forward, even across restarts', async () => {
    const { token } = await meAt(0, undefined);
    // 50 min later: used again, so the idle clock starts over
    assert.equal((await meAt(3000, token)).status, 200);
    // 100 min after login, 50 after the last use
    assert.equal((await meAt(6000, token)).status, 200);
  });

  it('ends a session unused for longer than the timeout with 401 session_expired', async () => {
    const { token } = await meAt(0, undefined);
    const idle = await meAt(3700, token);
    assert.deepEqual([idle.status, idle.code], [401, 'session_expired']);
  });

  it('with SVC_SESSION_IDLE_SECS=0 only the session lifetime counts', async () => {
    const { token } = await meAt(0, undefined, { SVC_SESSION_IDLE_SECS: '0' });
    assert.equal((await meAt(86_400, token, { SVC_SESSION_IDLE_SECS: '0' })).status, 200);
  });
});
