import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { createIngestToken } from '../helpers/auth.js';

interface Health {
  status: string;
  problems?: { kind: string; message: string; since: string; path?: string; count?: number }[];
}

async function health(url: string): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${url}/api/health`);
  return { status: res.status, body: (await res.json()) as Health };
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const v = await get();
    if (ok(v)) return v;
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('GET /api/health', () => {
  it('answers {"status":"ok"} and nothing more when all is well, without credentials', async () => {
    const srv = await startTestServer();
    try {
      assert.deepEqual(await health(srv.url), { status: 200, body: { status: 'ok' } });
    } finally {
      await srv.close();
    }
  });

  it('says degraded with writer_stalled while a write waits longer than SVC_HEALTH_WRITER_STALL_SECS, still 200, and ok once it is acknowledged', async () => {
    const srv = await startTestServer({ SVC_TEST_HOLD_WRITER: '1', SVC_HEALTH_WRITER_STALL_SECS: '1' });
    try {
      const token = await createIngestToken(srv, { env: 'default' });
      const pending = fetch(`${srv.url}/api/ingest?index=stall`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: '{"message":"waits"}',
      });
      const h = await until(
        'writer_stalled',
        () => health(srv.url),
        (x) => x.body.status === 'degraded',
      );
      assert.equal(h.status, 200);
      const [p] = h.body.problems!;
      assert.equal(p.kind, 'writer_stalled');
      assert.match(p.message, /a write has waited \d+ s for its acknowledgement \(limit 1 s\)/);
      assert.ok(Date.parse(p.since) <= Date.now());
      srv.deps.storage.releaseWriter();
      assert.equal((await pending).status, 200);
      assert.deepEqual((await health(srv.url)).body, { status: 'ok' });
    } finally {
      srv.deps.storage.releaseWriter();
      await srv.close();
    }
  });

  it('says degraded with blocks_set_aside while quarantine/ holds blocks, and ok once an operator removed them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-health-'));
    const q = join(dataDir, 'quarantine', 'default', 'main', '2026-11-01');
    mkdirSync(q, { recursive: true });
    writeFileSync(join(q, 'n1-1.parquet'), 'damaged');
    writeFileSync(join(q, 'n1-2.parquet'), 'damaged');
    const srv = await startTestServer({}, { dataDir });
    try {
      const h = await health(srv.url);
      assert.equal(h.body.status, 'degraded');
      assert.deepEqual(
        h.body.problems!.map((p) => [p.kind, p.count, p.path]),
        [['blocks_set_aside', 2, 'quarantine']],
      );
      assert.ok(!JSON.stringify(h.body).includes(dataDir), 'no full path');
      rmSync(join(dataDir, 'quarantine'), { recursive: true });
      await until(
        'ok',
        () => health(srv.url),
        (x) => x.body.status === 'ok',
      );
    } finally {
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
