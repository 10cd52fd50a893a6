import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchSelfLog } from '../helpers/selflog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKey } from '../helpers/auth.js';

/** The self-log inside a real svc: what it records, who may read it, that nobody can write to it. */

describe('self-log in a running svc', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv.close();
  });

  it('records the start of the service in _system/_svclogs', async () => {
    const res = await searchSelfLog(srv, 'event=start', '_svclogs');
    assert.equal(res.events.length, 1);
    assert.equal(res.events[0].fields.level, 'info');
    assert.match(res.events[0].message, /^start version=/);
  });

  it('records a service event a subsystem reports, with secrets redacted', async () => {
    srv.deps.selflog.service('credential_rejected', {
      reason: 'expired_credentials',
      credential: 'api_key',
      path: '/mcp',
      last_four: 'aB3d',
      authorization: 'Bearer svk_shouldnotappear',
    });
    const res = await searchSelfLog(srv, 'event=credential_rejected reason=expired_credentials', '_svclogs');
    assert.equal(res.events.length, 1);
    assert.equal(res.events[0].fields.level, 'warn');
    assert.equal(res.events[0].fields.credential, 'api_key');
    assert.doesNotMatch(JSON.stringify(res), /shouldnotappear/);
  });

  it('lets only admins search _system', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'] });
    await call(srv, 'GET', '/api/search?q=*&env=_system&index=_svclogs', { token: key, expect: 403 });
  });

  it('refuses an ingest token for the _system environment', async () => {
    await call(srv, 'POST', '/api/admin/ingest-tokens', {
      token: await adminToken(srv),
      body: { name: 'sneaky', env: '_system' },
      expect: [400, 403],
    });
  });
});

describe('self-log across a restart', () => {
  it('records stop on close, durably, before storage shuts down', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-selflog-'));
    try {
      const first = await startTestServer({}, { dataDir });
      await first.close();
      const second = await startTestServer({}, { dataDir });
      try {
        const res = await searchSelfLog(second, 'event=stop', '_svclogs');
        assert.equal(res.events.length, 1);
        assert.equal((await searchSelfLog(second, 'event=start', '_svclogs')).events.length, 2);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('storage problems in the self-log', () => {
  it('records a block set aside at start (damaged sidecar) as storage_problem, at level error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-selflog-'));
    try {
      const first = await startTestServer({}, { dataDir });
      await first.deps.selflog.flush();
      await first.deps.storage.flush(); // the self-log's own events are now in blocks
      await first.close();
      const sidecar = findFiles(join(dataDir, 'blocks'), '.json')[0];
      writeFileSync(sidecar, '{"v":1,"name":');
      const second = await startTestServer({}, { dataDir });
      try {
        const res = await searchSelfLog(second, 'event=storage_problem kind=block_quarantined', '_svclogs');
        assert.equal(res.events.length, 1);
        assert.equal(res.events[0].fields.level, 'error');
        assert.match(res.events[0].message, /^storage_problem kind=block_quarantined message=".*moved to .*quarantine/);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function findFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, ext));
    else if (p.endsWith(ext)) out.push(p);
  }
  return out;
}
