import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StorageProblem } from '../../src/storage/problems.js';
import { countWhere, makeEvents, openStorage, T0 } from './helpers.js';
import { cluster, sharedDir } from './shared-helpers.js';

// Several engines in one process on one shared directory store (docs/storage.md, "Several nodes").
// Nodes sync only when a test says so (syncNow), so every step is deterministic.

describe('blocks on a shared store', () => {
  it('publishes sealed blocks, and another node reads them exactly once, in partitions and fields too', async () => {
    const d = sharedDir();
    try {
      const a = await d.node('a');
      const c = await d.node('c');
      await a.engine.writer.write(makeEvents(100, { tag: 'pub' }), { wait: true });
      await a.engine.flush();
      const [entry] = d.manifest('a').blocks;
      const [local] = a.engine.listBlocks();
      assert.equal(entry.name, local.meta.name);
      assert.equal(entry.sha256, createHash('sha256').update(readFileSync(local.path)).digest('hex'));
      assert.ok(existsSync(join(d.dir, 'store', entry.key)) && existsSync(join(d.dir, 'store', entry.sidecarKey)));

      assert.equal(await countWhere(c.engine), 0, 'nothing before the sync');
      await cluster(c.engine).syncNow();
      assert.equal(await countWhere(c.engine), 100);
      assert.equal(await countWhere(c.engine, "tag = 'pub' AND even"), 50);
      assert.equal(await countWhere(a.engine), 100, 'the owner reads its own block locally, once');
      assert.deepEqual(
        c.engine.partitions().map((p) => [p.env, p.index, p.events]),
        [['default', 'main', 100]],
      );
      assert.ok(
        c.engine.fields({ envs: ['default'], indexes: null }).some((f) => f.name === 'seq' && f.events === 100),
      );
      const counts = await c.engine.countByBucket(
        { envs: ['default'], indexes: null, fromUs: T0 + 30_500_000, toUs: T0 + 90_000_000 },
        60_000_000,
      );
      assert.equal(
        counts.buckets.reduce((n, [, k]) => n + k, 0),
        59,
      );
    } finally {
      await d.close();
    }
  });

  it('swaps a merge in with one manifest write, and deletes the replaced objects only after the grace period', async () => {
    const d = sharedDir();
    try {
      const a = await d.node('a', { graceMs: 300 });
      const c = await d.node('c');
      for (let i = 0; i < 4; i++) {
        await a.engine.writer.write(makeEvents(25, { tag: `m${i}`, startUs: T0 + i * 100_000_000 }), { wait: true });
        await a.engine.flush();
      }
      await cluster(c.engine).syncNow();
      assert.equal(cluster(c.engine).counts().remote, 4);
      assert.equal(await countWhere(c.engine), 100);

      assert.equal(await a.engine.mergeRound(true), 1);
      await a.engine.flush();
      const m = d.manifest('a');
      assert.equal(m.blocks.length, 1);
      assert.equal(m.removed.length, 4);
      const replaced = m.removed.map((r) => join(d.dir, 'store', r.key));
      assert.ok(
        replaced.every((p) => existsSync(p)),
        'readers mid-sync can still fetch the inputs',
      );

      assert.equal(await countWhere(c.engine), 100, 'before its next sync the reader still reads the inputs');
      await cluster(c.engine).syncNow();
      assert.equal(cluster(c.engine).counts().remote, 1);
      assert.equal(await countWhere(c.engine), 100);

      await new Promise((r) => setTimeout(r, 350));
      await a.engine.flush();
      assert.deepEqual(d.manifest('a').removed, []);
      assert.ok(
        replaced.every((p) => !existsSync(p)),
        'the grace period passed: the inputs are gone from the store',
      );
    } finally {
      await d.close();
    }
  });

  it('publishes at start what was sealed but never published, and restores a lost data dir from the store', async () => {
    const d = sharedDir();
    try {
      // sealed while the node ran without the store (as after a kill -9 between seal and publish)
      const alone = await openStorage({ env: { SVC_NODE_ID: 'a' } });
      await alone.engine.writer.write(makeEvents(40, { tag: 'early' }), { wait: true });
      await alone.engine.flush();
      await alone.close({ keep: true });

      const a = await d.node('a', { dataDir: alone.dataDir });
      assert.deepEqual(
        d.manifest('a').blocks.map((e) => e.count),
        [40],
      );
      await a.close();
      rmSync(alone.dataDir, { recursive: true, force: true });

      const again = await d.node('a');
      assert.equal(again.engine.listBlocks().length, 1, 'the block came back from the store');
      assert.equal(await countWhere(again.engine, "tag = 'early'"), 40);
      assert.deepEqual(
        d.manifest('a').blocks.map((e) => e.count),
        [40],
      );
    } finally {
      await d.close();
    }
  });

  it('keeps sealed blocks on local disk while the store is away, tells it once, and publishes them when it is back', async () => {
    const d = sharedDir();
    try {
      const a = await d.node('a');
      const c = await d.node('c');
      const problems: StorageProblem[] = [];
      a.engine.onProblem((p) => problems.push(p));
      await a.engine.writer.write(makeEvents(10, { tag: 'before' }), { wait: true });
      await a.engine.flush();
      await cluster(c.engine).syncNow();
      assert.equal(await countWhere(c.engine), 10);

      // the store's directory gone, a file in its place: every call fails (a mount gone away)
      const storeDir = join(d.dir, 'store');
      renameSync(storeDir, `${storeDir}.away`);
      writeFileSync(storeDir, 'not a directory');
      for (let i = 0; i < 3; i++) {
        await a.engine.writer.write(makeEvents(10, { tag: `during${i}`, startUs: T0 + i * 1_000_000_000 }), {
          wait: true,
        });
        await a.engine.flush();
      }
      await cluster(a.engine).syncNow();
      const h = cluster(a.engine).health();
      assert.equal(h.available, false);
      assert.equal(h.unpublishedBlocks, 3);
      assert.equal(await countWhere(a.engine), 40, 'the node keeps serving its own events');
      await cluster(c.engine).syncNow();
      assert.equal(await countWhere(c.engine), 10, 'a reader keeps what it had, read from its cache');

      rmSync(storeDir);
      renameSync(`${storeDir}.away`, storeDir);
      await a.engine.flush();
      await cluster(c.engine).syncNow();
      assert.equal(cluster(a.engine).health().available, true);
      assert.equal(await countWhere(c.engine), 40);
      const told = problems.filter((p) => p.kind === 'store_unavailable');
      assert.deepEqual(
        told.map((p) => Boolean(p.resolved)),
        [false, true],
        'one report when it went, one when it came back',
      );
    } finally {
      await d.close();
    }
  });

  it('reads a damaged manifest of one node as an error for that node only', async () => {
    const d = sharedDir();
    try {
      const a = await d.node('a');
      const c = await d.node('c');
      await a.engine.writer.write(makeEvents(5), { wait: true });
      await a.engine.flush();
      mkdirSync(join(d.dir, 'store', 'nodes', 'broken'), { recursive: true });
      writeFileSync(join(d.dir, 'store', 'nodes', 'broken', 'manifest.json'), '{"v":1,');
      await cluster(c.engine).syncNow();
      assert.equal(await countWhere(c.engine), 5);
      assert.equal(cluster(c.engine).health().available, true);
    } finally {
      await d.close();
    }
  });
});
