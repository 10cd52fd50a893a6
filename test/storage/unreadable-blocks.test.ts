import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import type { StorageProblem } from '../../src/storage/problems.js';
import { countWhere, makeEvents, openStorage, T0 } from './helpers.js';

describe('a block file that can no longer be read', () => {
  it('is left out of searches and merges, told once, while the other blocks of its partition answer', async () => {
    const s = await openStorage();
    const told: StorageProblem[] = [];
    s.engine.onProblem((p) => told.push(p));
    try {
      await s.engine.writer.write(makeEvents(10, { tag: 'a' }), { wait: true });
      await s.engine.flush();
      await s.engine.writer.write(makeEvents(7, { tag: 'b', startUs: T0 + 3_600_000_000 }), { wait: true });
      await s.engine.flush();
      const [damaged] = s.engine.listBlocks().filter((b) => b.meta.count === 7);
      writeFileSync(damaged.path, Buffer.alloc(statSync(damaged.path).size, 0x42));
      assert.equal(await countWhere(s.engine), 10);
      assert.equal(await countWhere(s.engine, "tag = 'a'"), 10);
      assert.equal(s.engine.readWarnings(['default']).length, 1);
      assert.deepEqual(s.engine.readWarnings(['prod']), []);
      // a forced merge round would take both blocks of the day: it leaves the damaged one alone
      assert.equal(await s.engine.mergeRound(true), 0);
      assert.equal(s.engine.listBlocks().length, 2);
      assert.deepEqual(
        told.map((p) => [p.kind, p.path]),
        [['block_unreadable', damaged.path]],
      );
    } finally {
      await s.close();
    }
  });
});
