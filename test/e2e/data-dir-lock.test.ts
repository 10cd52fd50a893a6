import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServerProcessToExit, startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/auth.js';

/**
 * One svc per data dir: a second process on the same dir refuses to start, naming the first, and
 * touches nothing (no WAL replay, no block set aside); a first process killed with SIGKILL leaves a
 * lock the next start takes over.
 */
describe('the data-dir lock', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD };
  const running: ProcessServer[] = [];
  after(async () => {
    for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second svc on the same data dir, naming the holder, and lets a new one start after the first is killed with SIGKILL', async () => {
    const first = await startServerProcess(env);
    running.push(first);

    const second = await runServerProcessToExit(env);
    assert.equal(second.code, 1, second.output);
    assert.match(
      second.output,
      new RegExp(
        `in use by svc pid ${first.child.pid} on host ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(started \\d{4}-`,
      ),
    );
    assert.doesNotMatch(
      second.output,
      /storage open|replayedSegments/,
      'the second process never opened storage (no WAL replay)',
    );
    assert.equal(existsSync(join(dataDir, 'quarantine')), false, 'the second process set nothing aside');
    assert.equal((await fetch(`${first.url}/api/health`)).status, 200, 'the first process still serves');

    first.child.kill('SIGKILL');
    await first.stop();
    const third = await startServerProcess(env);
    running.push(third);
    assert.match(third.output(), /data dir lock left by a process that is gone/);
    assert.equal(await third.stop(), 0);
    assert.equal(existsSync(join(dataDir, 'svc.lock')), false, 'a clean stop gives the lock up');
  });
});
