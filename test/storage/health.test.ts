import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProblemReporter } from '../../src/storage/problems.js';
import { StorageHealth } from '../../src/storage/health.js';

function view(dataDir: string, problems: ProblemReporter, waitingSince?: () => number | undefined) {
  return new StorageHealth({
    dataDir,
    problems,
    oldestWaitingSince: waitingSince ?? (() => undefined),
    stallMs: 10_000,
  });
}

describe('the storage side of GET /api/health', () => {
  it('lists the problems going on with paths relative to the data dir, and nothing once they are resolved', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-health-'));
    try {
      const r = new ProblemReporter(() => 5000);
      const h = view(dir, r);
      r.report(
        'seal_failed',
        `cannot seal WAL segment 7: EROFS: read-only file system, open '${dir}/blocks/x.parquet.tmp'`,
        join(dir, 'wal', '000000000007.ndjson'),
      );
      const [p] = h.problems(6000);
      assert.equal(p.kind, 'seal_failed');
      assert.equal(p.path, 'wal/000000000007.ndjson');
      assert.equal(p.since, new Date(5000).toISOString());
      assert.ok(!p.message.includes(dir), `no full path in ${p.message}`);
      assert.match(p.message, /open 'blocks\/x\.parquet\.tmp'/);
      r.resolve('seal_failed', 'sealed', join(dir, 'wal', '000000000007.ndjson'));
      assert.deepEqual(h.problems(7000), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says the writer is stalled when a write has waited longer than the limit', () => {
    const r = new ProblemReporter(() => 0);
    let since: number | undefined = 1000;
    const h = view('/nowhere', r, () => since);
    assert.deepEqual(h.problems(5000), []);
    const [p] = h.problems(12_000);
    assert.equal(p.kind, 'writer_stalled');
    assert.match(p.message, /waited 11 s/);
    since = undefined;
    assert.deepEqual(h.problems(13_000), []);
  });

  it('counts blocks set aside in quarantine/ from the disk, and clears when an operator removes them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-health-'));
    try {
      const r = new ProblemReporter(() => 0);
      r.report('block_quarantined', 'damaged sidecar', join(dir, 'blocks/default/main/2026-01-01/n-1.parquet'));
      const q = join(dir, 'quarantine', 'default', 'main', '2026-01-01');
      mkdirSync(q, { recursive: true });
      writeFileSync(join(q, 'n-1.parquet'), 'x');
      writeFileSync(join(q, 'n-1.json'), 'x');
      const h = view(dir, r);
      const ps = h.problems(100_000);
      assert.deepEqual(
        ps.map((p) => [p.kind, p.count, p.path]),
        [['blocks_set_aside', 1, 'quarantine']],
      );
      rmSync(join(dir, 'quarantine'), { recursive: true });
      assert.deepEqual(h.problems(200_000), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets a recurring problem with no natural end (a failed background job) go ten minutes after its last report', () => {
    const now = 0;
    const r = new ProblemReporter(() => now);
    r.report('background_job_failed', 'merge: ENOSPC');
    const h = view('/nowhere', r);
    assert.equal(h.problems(60_000).length, 1);
    assert.deepEqual(h.problems(11 * 60_000), []);
  });

  it("keeps a local block that cannot be read until the next start, and lets another node's go ten minutes after its last report", () => {
    const r = new ProblemReporter(() => 0);
    r.report('block_unreadable', 'cannot read block', '/data/blocks/default/main/2026-01-01/n-1.parquet');
    r.report('block_unreadable', 'block of node b is not searchable here', 'nodes/b/blocks/x.json');
    const h = view('/data', r);
    assert.deepEqual(
      h.problems(11 * 60_000).map((p) => p.path),
      ['blocks/default/main/2026-01-01/n-1.parquet'],
    );
  });
});
