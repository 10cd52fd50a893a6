import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from './helpers.js';
import { onLines } from './fixtures/child-engine.js';

/**
 * The disk fills up under a stream of writes: a real child process runs the storage engine under
 * a file size limit (RLIMIT_FSIZE through `ulimit -f`), so WAL appends are cut off part-way (EFBIG,
 * as ENOSPC would). Rejected writes must leave nothing behind, and writes acknowledged after the
 * limit is lifted (`prlimit`, the disk freed) must not be glued to a torn line. Then kill -9 and
 * a restart: every acknowledged event exactly once, no rejected one.
 */
const LIMIT_KIB = 256;

function hasPrlimit(): boolean {
  return spawnSync('prlimit', ['--version']).status === 0;
}

describe('a full disk under a stream of writes', () => {
  it('rejects what it cannot store, keeps what it acknowledged exactly once, and recovers when space returns', async (t) => {
    if (!hasPrlimit()) {
      t.skip('prlimit (util-linux) is not installed');
      console.log('# skipped: prlimit (util-linux) is not installed');
      return;
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-full-'));
    try {
      const fixture = join(import.meta.dirname, 'fixtures', 'full-disk-child.ts');
      const child = spawn(
        'bash',
        ['-c', `ulimit -S -f ${LIMIT_KIB}; exec "${process.execPath}" --import tsx "${fixture}" "${dataDir}"`],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const acked = new Set<number>();
      const rejected = new Set<number>();
      const codes = new Set<string>();
      let acksAfterLift = 0;
      let lifted = false;
      const problems: string[] = [];
      onLines(child.stdout, (l) => {
        const [kind, a, b, code] = l.split(' ');
        if (kind === 'problem') return void problems.push(`${a} ${b}`);
        const into = kind === 'ack' ? acked : rejected;
        for (let i = Number(a); i <= Number(b); i++) into.add(i);
        if (kind === 'fail') codes.add(code);
        if (kind === 'ack' && lifted) acksAfterLift++;
      });
      const exited = new Promise((r) => child.on('exit', r));
      const until = async (cond: () => boolean, what: string) => {
        for (let w = 0; !cond(); w += 50) {
          if (w > 60_000) throw new Error(`timed out waiting for ${what}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await until(() => rejected.size >= 500, 'rejected writes');
      const ackedAtFull = acked.size;
      await new Promise((r) => setTimeout(r, 300)); // failing for a while: the process stays up
      assert.equal(child.exitCode, null, 'the process survives a full disk');
      assert.ok(ackedAtFull > 500, `acknowledged ${ackedAtFull} events before the disk filled`);
      // space returns: lift the limit of the running process
      assert.equal(spawnSync('prlimit', ['--pid', String(child.pid), `--fsize=unlimited:unlimited`]).status, 0);
      lifted = true;
      await until(() => acksAfterLift >= 40, 'acknowledgements after the disk was freed');
      child.kill('SIGKILL');
      await exited;
      assert.deepEqual([...codes], ['storage_unavailable']);
      // told once when appends began to fail (EFBIG under the file size limit: disk_full), resolved
      // by the first append that succeeded again
      assert.deepEqual(
        problems.filter((p) => /^(wal_write_failed|disk_full|disk_read_only) /.test(p)),
        ['disk_full told', 'disk_full resolved'],
      );

      const s = await openStorage({ dataDir });
      try {
        const counts = await s.engine.scan(
          { envs: ['default'], indexes: null, requiredTokens: [], fields: ['id'] },
          async (rel, exec) => {
            const r = await exec(`SELECT id, count(*) FROM ${rel.sql} AS e GROUP BY id`);
            return new Map(r.rows.map(([id, n]) => [Number(id), Number(n)]));
          },
        );
        for (const id of acked) assert.equal(counts.get(id), 1, `acknowledged id ${id} present exactly once`);
        for (const id of rejected) assert.equal(counts.get(id), undefined, `rejected id ${id} left nothing behind`);
        for (const [id, n] of counts) assert.equal(n, 1, `id ${id} not duplicated`);
      } finally {
        await s.close({ keep: true });
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
