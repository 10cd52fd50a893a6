import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync } from 'node:fs';
import { countWhere, makeEvents, openStorage, T0 } from './helpers.js';

describe('background merge', () => {
  it('merges small blocks of one partition into one, keeping every event and deleting the inputs', async () => {
    const s = await openStorage();
    try {
      for (let i = 0; i < 4; i++) {
        await s.engine.writer.write(makeEvents(25, { tag: `m${i}`, startUs: T0 + i * 100_000_000 }), { wait: true });
        await s.engine.flush();
      }
      const inputs = s.engine.listBlocks();
      assert.equal(inputs.length, 4);
      assert.equal(await s.engine.mergeRound(true), 1);
      const [merged] = s.engine.listBlocks();
      assert.equal(s.engine.listBlocks().length, 1);
      assert.equal(merged.meta.count, 100);
      assert.deepEqual(merged.meta.replaces.sort(), inputs.map((b) => b.meta.name).sort());
      for (const b of inputs) assert.equal(existsSync(b.path), false);
      assert.equal(await countWhere(s.engine), 100);
      assert.equal(await countWhere(s.engine, "tag = 'm2' AND even"), 13);
      const tokens = await s.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: ['m3'], fields: [] },
        async (rel) => rel.candidateEvents,
      );
      assert.equal(tokens, 100, 'the merged block carries a token filter over all inputs');
    } finally {
      await s.close();
    }
  });

  it('widens a field whose type differs between the inputs', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(
        makeEvents(10).map((e, i) => ({ ...e, fields: { code: i } })),
        { wait: true },
      );
      await s.engine.flush();
      await s.engine.writer.write(
        makeEvents(10, { startUs: T0 + 50_000_000 }).map((e) => ({ ...e, fields: { code: 'E1', other: 1.5 } })),
        { wait: true },
      );
      await s.engine.flush();
      assert.equal(await s.engine.mergeRound(true), 1);
      const [b] = s.engine.listBlocks();
      assert.deepEqual(b.meta.fields.map((f) => [f.name, f.type, f.count]).sort(), [
        ['code', 'VARCHAR', 20],
        ['other', 'DOUBLE', 10],
      ]);
      assert.equal(await countWhere(s.engine, "code = 'E1'"), 10);
      assert.equal(await countWhere(s.engine, "code = '3'"), 1);
      assert.equal(await countWhere(s.engine, 'other > 1'), 10);
    } finally {
      await s.close();
    }
  });

  it('never merges across days or indexes', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(10), { wait: true });
      await s.engine.flush();
      await s.engine.writer.write(makeEvents(10, { index: 'web' }), { wait: true });
      await s.engine.flush();
      await s.engine.writer.write(makeEvents(10, { startUs: T0 + 86_400_000_000 }), { wait: true });
      await s.engine.flush();
      assert.equal(await s.engine.mergeRound(true), 0);
      assert.equal(s.engine.listBlocks().length, 3);
    } finally {
      await s.close();
    }
  });

  it('finishes a merge interrupted before its inputs were deleted: inputs go, no duplicates', async () => {
    const s1 = await openStorage();
    for (let i = 0; i < 2; i++) {
      await s1.engine.writer.write(makeEvents(10, { tag: `r${i}` }), { wait: true });
      await s1.engine.flush();
    }
    const inputs = s1.engine.listBlocks();
    for (const b of inputs) {
      copyFileSync(b.path, b.path + '.keep');
      copyFileSync(b.sidecar, b.sidecar + '.keep');
    }
    await s1.engine.mergeRound(true);
    await s1.close({ keep: true });
    for (const b of inputs) {
      copyFileSync(b.path + '.keep', b.path);
      copyFileSync(b.sidecar + '.keep', b.sidecar);
    }
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(s2.engine.listBlocks().length, 1);
      assert.equal(await countWhere(s2.engine), 20);
    } finally {
      await s2.close();
    }
  });
});
