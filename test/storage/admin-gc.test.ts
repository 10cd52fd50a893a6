import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createApiKey } from '../helpers/auth.js';
import { makeEvents } from './helpers.js';
import { searchSelfLog } from '../helpers/selflog.js';

const DAY_MS = 86_400_000;

describe('POST /api/admin/gc', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ SVC_RETENTION_DEFAULT_DAYS: '30' });
  });
  after(async () => {
    await srv.close();
  });

  it('runs the sweep now and answers what it deleted: per-env override beats the default', async () => {
    const token = await adminToken(srv);
    await call(srv, 'POST', '/api/admin/envs', { token, body: { name: 'short', retentionDays: 2 } });
    const at = (daysAgo: number) => (Date.now() - daysAgo * DAY_MS) * 1000;
    const w = srv.deps.writer;
    await w.write(makeEvents(10, { env: 'default', startUs: at(10), tag: 'd10' }), { wait: true });
    await w.write(makeEvents(10, { env: 'default', startUs: at(40), tag: 'd40' }), { wait: true });
    await w.write(makeEvents(10, { env: 'short', startUs: at(10), tag: 's10' }), { wait: true });
    await w.write(makeEvents(10, { env: 'short', startUs: at(1) - 3600_000_000, tag: 's1' }), { wait: true });
    await srv.deps.storage.flush();
    const r = (await call(srv, 'POST', '/api/admin/gc', { token, expect: 200 })) as {
      deletedBlocks: number;
      deletedEvents: number;
      blocks: { env: string }[];
    };
    assert.equal(r.deletedBlocks, 2);
    assert.equal(r.deletedEvents, 20);
    assert.deepEqual(r.blocks.map((b) => b.env).sort(), ['default', 'short']);
    const left = srv.deps.store.partitions(['default', 'short']).map((p) => [p.env, p.events]);
    assert.deepEqual(left, [
      ['default', 10],
      ['short', 10],
    ]);

    // the forced sweep is recorded in the self-log, for admins to audit
    const recorded = (await searchSelfLog(srv, 'event=retention_sweep forced=true', '_svclogs')).events;
    assert.equal(recorded.length, 1);
    assert.equal(Number(recorded[0].fields.deleted_blocks), 2);
    assert.equal(Number(recorded[0].fields.deleted_events), 20);
  });

  it('refuses a standard key with 403 and no credentials with 401', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'] });
    await call(srv, 'POST', '/api/admin/gc', { token: key, expect: 403 });
    await call(srv, 'POST', '/api/admin/gc', { expect: 401 });
  });
});
