import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProblemReporter, type StorageProblem } from '../../src/storage/problems.js';

describe('storage problem reporting', () => {
  it('keeps problems found before anyone listens, and tells them once a listener comes', () => {
    const r = new ProblemReporter(() => 0);
    r.report('block_quarantined', 'a', '/x/a.parquet');
    r.report('block_quarantined', 'b', '/x/b.parquet');
    const told: StorageProblem[] = [];
    r.listen((p) => told.push(p));
    assert.deepEqual(
      told.map((p) => p.path),
      ['/x/a.parquet', '/x/b.parquet'],
    );
  });

  it('tells the same problem at most once a minute, with the number held back', () => {
    let now = 0;
    const r = new ProblemReporter(() => now);
    const told: StorageProblem[] = [];
    r.listen((p) => told.push(p));
    for (let i = 0; i < 5; i++) r.report('wal_write_failed', 'ENOSPC');
    r.report('seal_failed', 'ENOSPC'); // another problem is told at once
    now = 60_000;
    r.report('wal_write_failed', 'ENOSPC');
    assert.deepEqual(
      told.map((p) => [p.kind, p.repeated]),
      [
        ['wal_write_failed', 0],
        ['seal_failed', 0],
        ['wal_write_failed', 4],
      ],
    );
  });

  it('keeps a problem active from its first report until it is resolved, and tells the end only of a problem that was going on', () => {
    let now = 1000;
    const r = new ProblemReporter(() => now);
    const told: StorageProblem[] = [];
    r.listen((p) => told.push(p));
    r.resolve('disk_full', 'space returned'); // nothing was going on: nothing told
    r.report('disk_full', 'ENOSPC 1');
    now = 2000;
    r.report('disk_full', 'ENOSPC 2');
    assert.deepEqual(
      r.active().map((p) => [p.kind, p.message, p.since, p.lastAt, p.count]),
      [['disk_full', 'ENOSPC 2', 1000, 2000, 2]],
    );
    r.resolve('disk_full', 'space returned');
    r.resolve('disk_full', 'space returned');
    assert.deepEqual(r.active(), []);
    assert.deepEqual(
      told.map((p) => [p.kind, p.resolved ?? false]),
      [
        ['disk_full', false],
        ['disk_full', true],
      ],
    );
  });

  it('keeps problems of one kind apart by path, so one segment sealing does not clear another one failing', () => {
    const r = new ProblemReporter(() => 0);
    r.report('seal_failed', 'a', '/d/wal/1.ndjson');
    r.report('seal_failed', 'b', '/d/wal/2.ndjson');
    r.resolve('seal_failed', 'sealed', '/d/wal/1.ndjson');
    assert.deepEqual(
      r.active().map((p) => p.path),
      ['/d/wal/2.ndjson'],
    );
    assert.equal(r.isActive('seal_failed'), true);
  });

  it('keeps at most 1000 problems going on, forgetting the one reported longest ago', () => {
    let now = 0;
    const r = new ProblemReporter(() => now++);
    for (let i = 0; i <= 1000; i++) r.report('block_unreadable', `block ${i}`, `k${i}`);
    const active = r.active();
    assert.equal(active.length, 1000);
    assert.equal(active[0].path, 'k1');
  });
});
