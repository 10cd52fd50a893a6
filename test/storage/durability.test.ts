import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idCounts, openStorage } from './helpers.js';
import { onLines } from './fixtures/child-engine.js';

/** Runs the writer child until `ms` has passed, SIGKILLs it, and returns the acknowledged ids. */
async function writeThenKill(dataDir: string, ms: number, firstId: number): Promise<Set<number>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'writer-child.ts'), dataDir, String(firstId)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const acked = new Set<number>();
  onLines(child.stdout, (l) => {
    const [, a, b] = l.split(' ').map(Number);
    for (let i = a; i <= b; i++) acked.add(i);
  });
  const exited = new Promise((r) => child.on('exit', r));
  // wait for the first acknowledgement, then let it run
  for (let t = 0; acked.size === 0 && t < 30_000; t += 50) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, ms));
  child.kill('SIGKILL');
  await exited;
  return acked;
}

async function countsAfterRestart(
  dataDir: string,
): Promise<{ counts: Map<number, number>; sealedAfterFlush: boolean }> {
  const s = await openStorage({ dataDir });
  const before = await idCounts(s.engine);
  await s.engine.flush();
  const after = await idCounts(s.engine);
  assert.deepEqual([...after].sort(), [...before].sort(), 'replayed events stay the same once sealed');
  const st = s.engine.stats();
  await s.close({ keep: true });
  return { counts: after, sealedAfterFlush: st.liveEvents === 0 };
}

describe('durability under kill -9', () => {
  it('keeps every acknowledged event exactly once across three SIGKILLs and restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill-'));
    try {
      const allAcked = new Set<number>();
      for (const [round, ms] of [
        [0, 1500],
        [1, 700],
        [2, 1100],
      ]) {
        const acked = await writeThenKill(dataDir, ms, round * 10_000_000);
        assert.ok(acked.size > 500, `round ${round}: child acknowledged ${acked.size} events`);
        for (const id of acked) allAcked.add(id);
        const { counts, sealedAfterFlush } = await countsAfterRestart(dataDir);
        for (const id of allAcked) assert.equal(counts.get(id), 1, `acknowledged id ${id} present exactly once`);
        for (const [id, n] of counts) assert.equal(n, 1, `id ${id} not duplicated`);
        assert.ok(sealedAfterFlush, 'everything replayed is sealed after flush');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
