import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken, createIngestToken } from '../helpers/auth.js';

/**
 * Durability: a real svc process takes a stream of native ingests from concurrent clients, is
 * killed with SIGKILL in the middle, and restarted on the same data dir. Every event whose request
 * was acknowledged must be found exactly once; no event at all may be found twice.
 * Each request is one batch of BATCH events carrying `batch` and a unique `seq`.
 */

const BATCH = 200;
const CLIENTS = 4;
const INDEX = 'kill9';

interface Stream {
  acked: Set<number>;
  sent: number;
}

/** Posts batches from CLIENTS concurrent loops until the server goes away. */
async function streamUntilDead(url: string, token: string, stream: Stream): Promise<void> {
  let next = 0;
  const loop = async () => {
    for (;;) {
      const b = next++;
      const lines: string[] = [];
      for (let i = 0; i < BATCH; i++)
        lines.push(JSON.stringify({ batch: b, seq: b * BATCH + i, message: `kill9 batch ${b} event ${i}` }));
      stream.sent++;
      let res: Response;
      try {
        res = await fetch(`${url}/api/ingest?index=${INDEX}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body: lines.join('\n'),
        });
      } catch {
        return; // connection refused or reset: the server is gone
      }
      const body = (await res.json().catch(() => undefined)) as { ingested?: number } | undefined;
      if (res.status === 200 && body?.ingested === BATCH) stream.acked.add(b);
      else if (res.status !== 200) return;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
}

async function search(srv: ProcessServer, q: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const qs = new URLSearchParams({ q, env: 'default', index: INDEX, limit: '10000' });
  const res = await fetch(`${srv.url}/api/search?${qs}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  const text = await res.text();
  assert.equal(res.status, 200, `search ${q}: ${text}`);
  return JSON.parse(text);
}

describe('SIGKILL during a stream of acknowledged ingests', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill9-'));
  const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD };
  let srv: ProcessServer | undefined;
  after(async () => {
    await srv?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds every acknowledged event exactly once after a restart', async () => {
    const first = await startServerProcess(env);
    srv = first;
    const token = await createIngestToken(first, { env: 'default' });
    const stream: Stream = { acked: new Set(), sent: 0 };
    const streaming = streamUntilDead(first.url, token, stream);
    // kill once a fair number of batches is acknowledged, with more in flight
    const t0 = Date.now();
    while (stream.acked.size < 30 && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
    first.child.kill('SIGKILL');
    await streaming;
    await first.stop();
    assert.ok(stream.acked.size >= 30, `only ${stream.acked.size} batches acknowledged before the kill`);
    assert.ok(stream.sent > stream.acked.size, 'some requests were still in flight at the kill');

    srv = await startServerProcess(env);
    const r = await search(srv, '* | stats count, dc(seq) by batch');
    const [bi, ci, di] = ['batch', 'count', 'dc(seq)'].map((c) => r.columns.indexOf(c));
    const found = new Map(r.rows.map((row) => [Number(row[bi]), { count: Number(row[ci]), dc: Number(row[di]) }]));
    for (const b of stream.acked)
      assert.deepEqual(found.get(b), { count: BATCH, dc: BATCH }, `acknowledged batch ${b}`);
    for (const [b, f] of found) assert.equal(f.count, f.dc, `batch ${b} has duplicate events`);
  });
});
