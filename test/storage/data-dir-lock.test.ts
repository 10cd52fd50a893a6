import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLock, DataDirLockError, LOCK_FILE, type LockHolder } from '../../src/storage/data-dir-lock.js';

function withDir(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function plant(dir: string, h: Partial<LockHolder>): void {
  writeFileSync(
    join(dir, LOCK_FILE),
    JSON.stringify({ pid: 1, host: hostname(), startedAt: '2026-11-26T00:00:00.000Z', ...h }),
  );
}

/** A process that runs until killed, and its start time as /proc tells it. */
async function sleeper(): Promise<{ pid: number; procStart: string | undefined; kill: () => Promise<void> }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  const stat = existsSync(`/proc/${child.pid}/stat`) ? readFileSync(`/proc/${child.pid}/stat`, 'utf8') : undefined; // no /proc: pid only
  const procStart = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  const exited = new Promise((r) => child.once('exit', r));
  return { pid: child.pid!, procStart, kill: async () => void (child.kill('SIGKILL'), await exited) };
}

describe('the data-dir lock', () => {
  it(
    'is taken on a fresh data dir, names this process, and is given up by release',
    withDir((dir) => {
      const lock = DataDirLock.acquire(dir);
      const held = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
      assert.equal(held.pid, process.pid);
      assert.equal(held.host, hostname());
      lock.release();
      assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    }),
  );

  it(
    'refuses while a live process holds it, naming pid, host and start time',
    withDir(async (dir) => {
      const s = await sleeper();
      try {
        plant(dir, { pid: s.pid, procStart: s.procStart });
        assert.throws(
          () => DataDirLock.acquire(dir),
          (e: unknown) => {
            assert.ok(e instanceof DataDirLockError);
            assert.equal(e.holder?.pid, s.pid);
            assert.match(
              e.message,
              new RegExp(
                `in use by svc pid ${s.pid} on host .+ \\(started 2026-11-26T00:00:00\\.000Z\\); stop that process first$`,
              ),
            );
            return true;
          },
        );
      } finally {
        await s.kill();
      }
    }),
  );

  it(
    'takes over a lock whose process is gone (kill -9), or whose pid now runs another process',
    withDir(async (dir) => {
      const s = await sleeper();
      plant(dir, { pid: s.pid, procStart: s.procStart });
      await s.kill();
      const stale: (LockHolder | undefined)[] = [];
      DataDirLock.acquire(dir, (h) => stale.push(h)).release();
      assert.deepEqual(
        stale.map((h) => h?.pid),
        [s.pid],
      );

      const other = await sleeper();
      try {
        plant(dir, { pid: other.pid, procStart: '1' }); // the pid was reused: another start time
        DataDirLock.acquire(dir).release();
      } finally {
        await other.kill();
      }
    }),
  );

  it(
    'takes over a lock naming its own pid (a container restarted as pid 1), and leaves a lock that is not its own on release',
    withDir((dir) => {
      plant(dir, { pid: process.pid });
      const lock = DataDirLock.acquire(dir);
      plant(dir, { pid: 12345, host: 'elsewhere' });
      lock.release();
      assert.equal(existsSync(join(dir, LOCK_FILE)), true);
    }),
  );

  it(
    'refuses a lock held on another host, saying how to clear it if that process is gone',
    withDir((dir) => {
      plant(dir, { pid: 42, host: 'other-host' });
      assert.throws(
        () => DataDirLock.acquire(dir),
        /in use by svc pid 42 on host other-host .*, or remove .*svc\.lock if it is gone/,
      );
    }),
  );
});
