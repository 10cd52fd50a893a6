import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken, createIngestToken } from '../helpers/auth.js';

/**
 * Durability: a real svc process takes a stream of native ingests from concurrent clients, is
 * killed with SIGKILL in the middle, and restarted on the same data dir. Every event whose request
 * was acknowledged must be found exactly once; no event at all may be found twice.
 * Each request is one batch of `size` events carrying `batch` and a unique `seq`. Twice: batches of
 * 200 events go through the WAL; batches of 2,500 spread over three days are written as parts by
 * the decode workers (storage/parts/), three parts per batch published under one marker.
 */

const CLIENTS = 4;
const INDEX = 'kill9';
const DAY_MS = 86_400_000;

interface Shape {
  size: number;
  days: number;
}

interface Stream {
  acked: Set<number>;
  sent: number;
}

/** Posts batches from CLIENTS concurrent loops until the server goes away. */
async function streamUntilDead(url: string, token: string, stream: Stream, shape: Shape): Promise<void> {
  let next = 0;
  const now = Date.now();
  const loop = async () => {
    for (;;) {
      const b = next++;
      const lines: string[] = [];
      for (let i = 0; i < shape.size; i++) {
        const _time = new Date(now - (i % shape.days) * DAY_MS).toISOString();
        lines.push(
          JSON.stringify({ _time, batch: b, seq: b * shape.size + i, message: `kill9 batch ${b} event ${i}` }),
        );
      }
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
      if (res.status === 200 && body?.ingested === shape.size) stream.acked.add(b);
      else if (res.status !== 200) return;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
}

/** Sidecars of parts (their filters use the t2 hash) under `dir`. */
function partsIn(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (
      e.isFile() &&
      e.name.endsWith('.json') &&
      readFileSync(join(e.parentPath, e.name), 'utf8').includes('"hash":"t2"')
    )
      n++;
  return n;
}

async function search(srv: ProcessServer, q: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const qs = new URLSearchParams({ q, env: 'default', index: INDEX, limit: '10000', from: '-7d' });
  const res = await fetch(`${srv.url}/api/search?${qs}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  const text = await res.text();
  assert.equal(res.status, 200, `search ${q}: ${text}`);
  return JSON.parse(text);
}

for (const shape of [
  { size: 200, days: 1, path: 'the WAL' },
  { size: 2500, days: 3, path: 'parts' },
]) {
  describe(`SIGKILL during a stream of acknowledged ingests (${shape.path})`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill9-'));
    // the default SVC_PART_MIN_EVENTS (8,192) would send the 2,500-event batches through the WAL
    const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SVC_PART_MIN_EVENTS: '2000' };
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
      const streaming = streamUntilDead(first.url, token, stream, shape);
      // kill once a fair number of batches is acknowledged, with more in flight
      const t0 = Date.now();
      while (stream.acked.size < 30 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20));
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
        assert.deepEqual(found.get(b), { count: shape.size, dc: shape.size }, `acknowledged batch ${b}`);
      for (const [b, f] of found) assert.equal(f.count, f.dc, `batch ${b} has duplicate events`);
      // parts: a batch is committed whole or not at all, acknowledged or not (the marker rule)
      if (shape.path === 'parts') {
        for (const [b, f] of found) assert.equal(f.count, shape.size, `batch ${b} is in part`);
        assert.ok(partsIn(join(dataDir, 'blocks')) > 0, 'the batches were written as parts');
      }
    });
  });
}
