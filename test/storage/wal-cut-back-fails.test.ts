import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { adminToken, createIngestToken } from '../helpers/auth.js';

function chattr(flag: '+i' | '-i', ...paths: string[]): boolean {
  return spawnSync('chattr', [flag, ...paths], { stdio: 'ignore' }).status === 0;
}

/**
 * The first write after the disk stops taking writes while the WAL segment is open: the append
 * fails and so does cutting the segment back, so the engine closes the segment, whose summary file
 * cannot be written either. That once answered 500 internal (the summary's error escaped); it must
 * answer 503 storage_unavailable with Retry-After like every later write. The open segment and
 * wal/ are made immutable (chattr +i, root on ext4 and the like; skipped elsewhere): writes to the
 * open file and new files in wal/ fail with EPERM.
 */
describe('a WAL segment that can neither be written nor cut back', () => {
  it('answers 503 storage_unavailable with Retry-After from the first write, says so in health, and recovers', async (t) => {
    const srv = await startTestServer({ SVC_TEST_SEGMENT_AGE_MS: '600000', SVC_HEALTH_WRITER_STALL_SECS: '60' });
    const walDir = join(srv.dataDir, 'wal');
    let frozen: string[] = [];
    try {
      const token = await createIngestToken(srv, { env: 'default' });
      const post = (n: number) =>
        fetch(`${srv.url}/api/ingest?index=cut`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body: JSON.stringify({ message: `event ${n}` }),
        });
      assert.equal((await post(1)).status, 200);
      const open = readdirSync(walDir)
        .filter((n) => n.endsWith('.ndjson'))
        .map((n) => join(walDir, n));
      frozen = [...open, walDir];
      if (!chattr('+i', ...frozen)) {
        frozen = [];
        t.skip('chattr +i is not available here (needs root and a file system that supports it)');
        console.log('# skipped: chattr +i is not available here');
        return;
      }
      for (let i = 0; i < 2; i++) {
        const res = await post(100 + i);
        const body = (await res.json()) as { error?: { code: string; message: string } };
        assert.equal(res.status, 503, `write ${i + 1} after the disk stopped: ${JSON.stringify(body)}`);
        assert.equal(body.error?.code, 'storage_unavailable');
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
      }
      const h = (await (await fetch(`${srv.url}/api/health`)).json()) as {
        status: string;
        problems: { kind: string; message: string }[];
      };
      assert.equal(h.status, 'degraded');
      assert.match(h.problems.find((p) => p.kind === 'wal_write_failed')?.message ?? JSON.stringify(h), /EPERM/);

      chattr('-i', ...frozen);
      frozen = [];
      assert.equal((await post(2)).status, 200);
      const end = Date.now() + 30_000;
      let last = '';
      for (;;) {
        last = await (await fetch(`${srv.url}/api/health`)).text();
        if (last === '{"status":"ok"}') break;
        assert.ok(Date.now() < end, `health back to ok: ${last}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const qs = new URLSearchParams({ q: '* | stats count', env: 'default', index: 'cut' });
      const res = await fetch(`${srv.url}/api/search?${qs}`, {
        headers: { authorization: `Bearer ${await adminToken(srv)}` },
      });
      const r = (await res.json()) as { rows: unknown[][] };
      assert.equal(Number(r.rows[0][0]), 2, 'the two acknowledged events, none of the refused ones');
    } finally {
      if (frozen.length) chattr('-i', ...frozen);
      await srv.close();
    }
  });
});
