import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pickMerges, type MergePolicy } from '../../src/storage/blocks/merge-policy.js';
import type { Block } from '../../src/storage/blocks/block-files.js';

const POLICY: MergePolicy = {
  smallEvents: 1000,
  partEvents: 1000,
  settledEvents: 50_000,
  settledMs: 600_000,
  hotMaxBlocks: 8,
  targetEvents: 100_000,
  minBlocks: 4,
  coldMs: 30_000,
};
const NOW = 10_000_000;

let seq = 0;
/** A block of `count` events of day `day`, made `ageMs` before NOW. */
function block(count: number, ageMs: number, o: { day?: string; hasExtra?: boolean } = {}): Block {
  const meta = {
    env: 'default',
    index: 'main',
    day: o.day ?? '2026-11-20',
    count,
    createdAt: NOW - ageMs,
    hasExtra: o.hasExtra ?? false,
    name: `b${++seq}`,
  };
  return { meta, path: `/x/${meta.name}.parquet` } as unknown as Block;
}

const names = (groups: Block[][]) => groups.map((g) => g.map((b) => b.meta.name).sort());

describe('merge policy', () => {
  it('merges blocks smaller than a granule while their partition is written', () => {
    const tiny = [1, 2, 3, 4].map((i) => block(500, i * 1000));
    const mid = [block(20_000, 100), block(20_000, 200)];
    const groups = pickMerges([...tiny, ...mid], NOW, POLICY);
    assert.deepEqual(names(groups), [tiny.map((b) => b.meta.name).sort()]);
  });

  it('leaves larger blocks of a partition still being written alone', () => {
    const mid = [1, 2, 3, 4, 5].map((i) => block(20_000, i * 1000));
    assert.deepEqual(pickMerges(mid, NOW, POLICY), []);
  });

  it('merges them once the partition has been quiet for settledMs, up to the target', () => {
    const mid = [1, 2, 3, 4, 5, 6].map((i) => block(20_000, POLICY.settledMs + i));
    const groups = pickMerges(mid, NOW, POLICY);
    assert.deepEqual(
      groups.map((g) => g.reduce((n, b) => n + b.meta.count, 0)),
      [100_000],
    );
  });

  it('merges them in a partition written all day once it holds hotMaxBlocks of them', () => {
    const mid = Array.from({ length: POLICY.hotMaxBlocks }, (_, i) => block(10_000, i * 1000));
    const groups = pickMerges(mid, NOW, POLICY);
    assert.equal(groups.flat().length, POLICY.hotMaxBlocks);
    assert.deepEqual(pickMerges(mid.slice(1), NOW, POLICY), []);
  });

  it('never merges blocks at settledEvents or carrying _extra, and keeps partitions apart', () => {
    const big = [block(50_000, POLICY.settledMs * 2), block(60_000, POLICY.settledMs * 2)];
    const extra = [1, 2, 3, 4].map((i) => block(10, i, { hasExtra: true }));
    const apart = [
      block(10, 1, { day: '2026-11-21' }),
      block(10, 2, { day: '2026-11-22' }),
      block(10, 3, { day: '2026-11-23' }),
      block(10, 4, { day: '2026-11-24' }),
    ];
    assert.deepEqual(pickMerges([...big, ...extra, ...apart], NOW, POLICY), []);
  });

  it('a quiet partition merges even two small blocks after coldMs', () => {
    const two = [block(100, POLICY.coldMs + 1), block(100, POLICY.coldMs + 2)];
    assert.equal(pickMerges(two, NOW, POLICY).length, 1);
    assert.equal(pickMerges([block(100, 1), block(100, 2)], NOW, POLICY).length, 0);
  });
});
