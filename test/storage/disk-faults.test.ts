import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { ProblemReporter } from '../../src/storage/problems.js';
import { WalFaults, freeBytesAt } from '../../src/storage/disk-faults.js';

const enospc = Object.assign(new Error('cannot write the write-ahead log (ENOSPC)'), { code: 'ENOSPC' });
const erofs = Object.assign(new Error('cannot write the write-ahead log (EROFS)'), { code: 'EROFS' });

describe('WAL write faults in health', () => {
  it('keeps disk_full while the disk has no room, though a small write fitted in a page slack, and ends it when space returns', () => {
    const problems = new ProblemReporter(() => 0);
    let free = 4096;
    const faults = new WalFaults(problems, () => free);
    faults.failed(enospc);
    faults.succeeded(); // svc's own self-log batch fitted in the open segment's last page
    assert.deepEqual(
      problems.active().map((p) => p.kind),
      ['disk_full'],
    );
    free = 40 << 20;
    faults.succeeded();
    assert.deepEqual(problems.active(), []);
  });

  it('ends a read-only disk at the first write that succeeds, whatever the free space', () => {
    const problems = new ProblemReporter(() => 0);
    const faults = new WalFaults(problems, () => 0);
    faults.failed(erofs);
    faults.succeeded();
    assert.deepEqual(problems.active(), []);
  });

  it('ends disk_full at the first success when the free space cannot be asked', () => {
    const problems = new ProblemReporter(() => 0);
    const faults = new WalFaults(problems, () => undefined);
    faults.failed(enospc);
    faults.succeeded();
    assert.deepEqual(problems.active(), []);
  });

  it('asks the file system for its free bytes', () => {
    assert.ok((freeBytesAt(tmpdir()) ?? -1) > 0);
    assert.equal(freeBytesAt('/no/such/dir/here'), undefined);
  });
});
