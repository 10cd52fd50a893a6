import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveSegment } from '../../src/storage/wal/live-segment.js';
import { writeSummary } from '../../src/storage/wal/segment-summary.js';
import { Wal } from '../../src/storage/wal/wal.js';
import { makeEvents, openStorage } from './helpers.js';

/** A segment's summary (`wal/<seq>.summary.json`) is best effort: a full disk must neither fail the WAL path nor leave a partial temp file. */
describe('the segment summary file', () => {
  it('is not written on a full disk, without throwing and without a partial temp file left behind', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-summary-'));
    const mounted =
      process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]).status === 0;
    try {
      if (!mounted) {
        t.skip('cannot mount a tmpfs here (needs root)');
        console.log('# skipped: cannot mount a tmpfs here (needs root)');
        return;
      }
      const fd = openSync(join(dir, 'filler'), 'w');
      const page = Buffer.alloc(4096, 120);
      for (;;) {
        try {
          writeSync(fd, page);
        } catch {
          break; // ENOSPC: the disk is full
        }
      }
      closeSync(fd);
      const seg = new LiveSegment(7, Wal.segmentPath(dir, 7));
      assert.equal(writeSummary(dir, seg), false);
      assert.deepEqual(readdirSync(dir), ['filler']);
      rmSync(join(dir, 'filler'));
      assert.equal(writeSummary(dir, seg), true);
      assert.deepEqual(readdirSync(dir).sort(), ['000000000007.summary.json']);
    } finally {
      if (mounted) spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves no stray temp file in wal/ past the next start', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(10), { wait: true });
    await s1.close({ keep: true });
    const stray = Wal.summaryPath(join(s1.dataDir, 'wal'), 99) + '.tmp';
    mkdirSync(join(s1.dataDir, 'wal'), { recursive: true });
    writeFileSync(stray, '[{"env":');
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(existsSync(stray), false);
    } finally {
      await s2.close();
    }
  });
});
