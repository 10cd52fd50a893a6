import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { StoreConflict, type ObjectStore } from '../../src/shared-store/object-store.js';

/**
 * What every ObjectStore must do (src/shared-store/object-store.ts), run against each
 * implementation: a directory, and a real S3 server. `open` gives a store rooted at an empty prefix.
 */
export function describeObjectStore(
  name: string,
  open: () => Promise<{ store: ObjectStore; close: () => Promise<void> }>,
  opts: { skip?: string | false } = {},
): void {
  describe(`${name} as the shared store`, { skip: opts.skip }, () => {
    let store: ObjectStore;
    let close: () => Promise<void>;
    let local: string;
    before(async () => {
      ({ store, close } = await open());
      local = mkdtempSync(join(tmpdir(), 'svc-store-local-'));
    });
    after(async () => {
      await close?.();
      if (local) rmSync(local, { recursive: true, force: true });
    });

    it('stores, reads, lists by prefix and deletes objects', async () => {
      const v1 = await store.put('a/one.json', Buffer.from('1'));
      await store.put('a/two.json', Buffer.from('22'));
      await store.put('b/three.json', Buffer.from('333'));
      const got = await store.get('a/one.json');
      assert.equal(got?.data.toString(), '1');
      assert.equal(got?.version, v1);
      assert.deepEqual((await store.head('a/two.json'))?.size, 2);
      assert.deepEqual(
        (await store.list('a/')).map((o) => [o.key, o.size]),
        [
          ['a/one.json', 1],
          ['a/two.json', 2],
        ],
      );
      await store.delete('a/one.json');
      await store.delete('a/never-there.json');
      assert.equal(await store.get('a/one.json'), undefined);
      assert.equal(await store.head('a/one.json'), undefined);
    });

    it('gives a new version to new bytes', async () => {
      const v1 = await store.put('v/x', Buffer.from('same length 1'));
      const v2 = await store.put('v/x', Buffer.from('same length 2'));
      assert.notEqual(v1, v2);
      assert.equal((await store.head('v/x'))?.version, v2);
    });

    it('refuses a write if-absent when the object exists, and leaves it as it was', async () => {
      await store.put('c/once', Buffer.from('first'), { ifAbsent: true });
      await assert.rejects(store.put('c/once', Buffer.from('second'), { ifAbsent: true }), StoreConflict);
      assert.equal((await store.get('c/once'))?.data.toString(), 'first');
    });

    it('writes if-version only over that version', async () => {
      const v1 = await store.put('d/doc', Buffer.from('v1'));
      const v2 = await store.put('d/doc', Buffer.from('v2'), { ifVersion: v1 });
      await assert.rejects(store.put('d/doc', Buffer.from('stale'), { ifVersion: v1 }), StoreConflict);
      await assert.rejects(store.put('d/gone', Buffer.from('x'), { ifVersion: v1 }), StoreConflict);
      assert.equal((await store.get('d/doc'))?.data.toString(), 'v2');
      assert.equal((await store.head('d/doc'))?.version, v2);
    });

    it('lets exactly one of 16 racing writers create an object', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) => store.put('e/race', Buffer.from(`w${i}`), { ifAbsent: true })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.ok(results.every((r) => r.status === 'fulfilled' || r.reason instanceof StoreConflict));
    });

    it('loses no update when writers read, change and write back concurrently', async () => {
      await store.put('f/counter', Buffer.from('0'));
      const bump = async () => {
        for (;;) {
          const cur = (await store.get('f/counter'))!;
          try {
            await store.put('f/counter', Buffer.from(String(Number(cur.data.toString()) + 1)), {
              ifVersion: cur.version,
            });
            return;
          } catch (e) {
            if (!(e instanceof StoreConflict)) throw e;
          }
        }
      };
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (let i = 0; i < 5; i++) await bump();
        }),
      );
      assert.equal((await store.get('f/counter'))?.data.toString(), '30');
    });

    it('uploads and downloads files byte for byte', async () => {
      const src = join(local, 'block.bin');
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      writeFileSync(src, bytes);
      const up = await store.upload('g/block.bin', src);
      assert.equal(up.size, bytes.length);
      const dst = join(local, 'copy', 'block.bin');
      const down = await store.download('g/block.bin', dst);
      assert.equal(down.size, bytes.length);
      assert.ok(readFileSync(dst).equals(bytes));
    });
  });
}
