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
    assert.deepEqual(told.map((p) => p.path), ['/x/a.parquet', '/x/b.parquet']);
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
    assert.deepEqual(told.map((p) => [p.kind, p.repeated]), [['wal_write_failed', 0], ['seal_failed', 0], ['wal_write_failed', 4]]);
  });
});
