import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RETENTION_LEASE } from '../../src/storage/shared/layout.js';
import { countWhere, makeEvents } from './helpers.js';
import { cluster, sharedDir } from './shared-helpers.js';

const DAY_US = 86_400_000_000;

describe("the cache of other nodes' blocks", () => {
  it('downloads a block once for concurrent scans, evicts the least recently used, never a pinned one, and checks each download', async () => {
    const d = sharedDir();
    try {
      const a = await d.node('a');
      for (const index of ['i1', 'i2', 'i3']) {
        await a.engine.writer.write(makeEvents(100, { index, tag: index }), { wait: true });
        await a.engine.flush();
      }
      const size = Math.max(...d.manifest('a').blocks.map((e) => e.size));
      const c = await d.node('c', { env: { SVC_CACHE_MAX_GB: String((2.5 * size) / 1024 ** 3) } });
      const cache = cluster(c.engine).cache;
      const file = (index: string) => cache.pathFor(d.manifest('a').blocks.find((e) => e.index === index)!.key);
      const count = (index: string) => countWhere(c.engine, 'true', { indexes: [index] });

      assert.equal(await count('i1'), 100);
      assert.equal(await count('i1'), 100);
      assert.deepEqual([cache.stats().misses, cache.stats().hits], [1, 1]);
      assert.deepEqual(await Promise.all([count('i2'), count('i2'), count('i2')]), [100, 100, 100]);
      assert.deepEqual([cache.stats().misses, cache.stats().hits], [2, 3], 'three scans, one download');

      assert.equal(await count('i3'), 100);
      assert.equal(existsSync(file('i1')), false, 'the least recently used block left the cache');
      assert.ok(existsSync(file('i2')) && existsSync(file('i3')));
      assert.ok(cache.stats().bytes <= cache.stats().maxBytes);

      // a scan reading i2 holds it; the next download evicts i3 instead
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const holding = c.engine.scan({ envs: ['default'], indexes: ['i2'], requiredTokens: [], fields: [] }, () => gate);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await count('i1'), 100);
      assert.ok(existsSync(file('i2')), 'a block a running scan reads is not evicted');
      assert.equal(existsSync(file('i3')), false);
      release();
      await holding;

      // a download that does not match the manifest's checksum is refused and not kept
      const stored = join(d.dir, 'store', d.manifest('a').blocks.find((e) => e.index === 'i3')!.key);
      const bytes = readFileSync(stored);
      bytes[bytes.length >> 1] ^= 0xff;
      writeFileSync(stored, bytes);
      await assert.rejects(
        count('i3'),
        (e: Error & { code?: string }) => e.code === 'storage_unavailable' && /SHA-256/.test(e.message),
      );
      assert.equal(existsSync(file('i3')), false);
    } finally {
      await d.close();
    }
  });
});

describe('retention across nodes', () => {
  it('takes an expired block of a stopped node out of its manifest, under the lease, and its owner drops it on return', async () => {
    const d = sharedDir();
    try {
      d.control.setEnv('short', 30);
      const a = await d.node('a');
      const c = await d.node('c');
      const old = Date.now() * 1000 - 10 * DAY_US;
      await a.engine.writer.write(makeEvents(50, { env: 'short', startUs: old, tag: 'old' }), { wait: true });
      await a.engine.writer.write(makeEvents(20, { startUs: Date.now() * 1000 - 60_000_000, tag: 'new' }), {
        wait: true,
      });
      await a.engine.flush();
      await cluster(c.engine).syncNow();
      assert.equal(await countWhere(c.engine, 'true', { envs: ['short'] }), 50);
      const dataDir = a.dataDir;
      await a.close({ keep: true });

      d.control.setEnv('short', 5);
      // another node holds the lease for a moment: the timer's sweep skips, a forced one waits for it
      await d.store.put(RETENTION_LEASE, Buffer.from(JSON.stringify({ holder: 'z', until: Date.now() + 700 })));
      assert.equal((await c.engine.sweep(false)).deletedBlocks, 0);
      const r = await c.engine.sweep(true);
      assert.equal(r.deletedBlocks, 1);
      assert.deepEqual(
        r.blocks.map((b) => [b.node, b.env, b.events]),
        [['a', 'short', 50]],
      );
      assert.equal(await countWhere(c.engine, 'true', { envs: ['short'] }), 0, 'gone on the sweeping node at once');
      assert.equal(await countWhere(c.engine), 20);
      assert.deepEqual(
        d.manifest('a').blocks.map((e) => e.env),
        ['default'],
      );
      assert.deepEqual(
        JSON.parse(readFileSync(join(d.dir, 'store', RETENTION_LEASE), 'utf8')).until,
        0,
        'the lease is given back',
      );

      const back = await d.node('a', { dataDir });
      assert.deepEqual(
        back.engine.listBlocks().map((b) => b.meta.env),
        ['default'],
        'the owner dropped its local copy',
      );
      assert.deepEqual(
        d.manifest('a').blocks.map((e) => e.env),
        ['default'],
        'and did not publish it again',
      );
    } finally {
      await d.close();
    }
  });
});
