import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken, createIngestToken } from '../helpers/auth.js';

/**
 * SIGTERM always ends svc, cleanly, with nothing acknowledged lost: a real process takes a stream
 * of native ingests from concurrent clients and gets SIGTERM in the middle, once with 64 MiB-ish
 * segments (a stop during heavy ingest) and once with segments sealed every 100 ms (a stop during
 * a seal). It must exit 0 (not by its SVC_SHUTDOWN_TIMEOUT_SECS deadline, which exits 1), and a
 * restart must find every acknowledged batch exactly once.
 */
const BATCH = 500;
const CLIENTS = 4;
const INDEX = 'sigterm';

async function streamUntilStopped(
  url: string,
  token: string,
  acked: Set<number>,
  stop: { sent: number },
): Promise<void> {
  let next = 0;
  const loop = async () => {
    for (;;) {
      const b = next++;
      const lines: string[] = [];
      for (let i = 0; i < BATCH; i++)
        lines.push(
          JSON.stringify({ batch: b, seq: b * BATCH + i, message: `sigterm batch ${b} event ${i} ${'x'.repeat(200)}` }),
        );
      stop.sent++;
      let res: Response;
      try {
        res = await fetch(`${url}/api/ingest?index=${INDEX}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body: lines.join('\n'),
        });
      } catch {
        return; // the server is gone
      }
      const body = (await res.json().catch(() => undefined)) as { ingested?: number } | undefined;
      if (res.status === 200 && body?.ingested === BATCH) acked.add(b);
      else if (res.status !== 200) return; // 503 shutting_down
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
}

async function countsByBatch(srv: ProcessServer): Promise<Map<number, { count: number; dc: number }>> {
  const qs = new URLSearchParams({
    q: '* | stats count, dc(seq) by batch',
    env: 'default',
    index: INDEX,
    limit: '10000',
  });
  const res = await fetch(`${srv.url}/api/search?${qs}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const r = JSON.parse(text) as { columns: string[]; rows: unknown[][] };
  const [bi, ci, di] = ['batch', 'count', 'dc(seq)'].map((c) => r.columns.indexOf(c));
  return new Map(r.rows.map((row) => [Number(row[bi]), { count: Number(row[ci]), dc: Number(row[di]) }]));
}

for (const c of <{ name: string; env: Record<string, string> }[]>[
  { name: 'during heavy ingest', env: {} },
  { name: 'during a seal (segments sealed every 100 ms)', env: { SVC_TEST_SEGMENT_AGE_MS: '100' } },
]) {
  describe(`SIGTERM ${c.name}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-sigterm-'));
    const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, ...c.env };
    let srv: ProcessServer | undefined;
    after(async () => {
      if (srv?.child.exitCode === null) srv.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('exits 0 by itself and keeps every acknowledged event exactly once', async () => {
      const first = await startServerProcess(env);
      srv = first;
      const token = await createIngestToken(first, { env: 'default' });
      const acked = new Set<number>();
      const counter = { sent: 0 };
      const streaming = streamUntilStopped(first.url, token, acked, counter);
      const t0 = Date.now();
      while (acked.size < 60 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
      const code = await first.stop();
      await streaming;
      assert.ok(acked.size >= 60, `only ${acked.size} batches acknowledged before SIGTERM`);
      assert.equal(code, 0, `exit code ${code}:\n${first.output().slice(-3000)}`);

      srv = await startServerProcess(env);
      const found = await countsByBatch(srv);
      for (const b of acked) assert.deepEqual(found.get(b), { count: BATCH, dc: BATCH }, `acknowledged batch ${b}`);
      for (const [b, f] of found) assert.equal(f.count, f.dc, `batch ${b} has duplicate events`);
      assert.equal(await srv.stop(), 0);
    });
  });
}
