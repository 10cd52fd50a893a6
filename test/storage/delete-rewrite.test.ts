import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteFilter } from '../../src/deletes/filter.js';
import type { DeleteSpec } from '../../src/deletes/types.js';
import { T0, countWhere, makeEvents, openStorage } from './helpers.js';

/** A delete of `query` over all of 2026-01-10's events of env default. */
function spec(query: string): DeleteSpec {
  const fromUs = Date.UTC(2026, 0, 10) * 1000;
  const toUs = Date.UTC(2026, 0, 11) * 1000;
  return { env: 'default', index: null, from: '', to: '', fromUs, toUs, query };
}

describe('rewriting blocks for a delete (storage/deleting.ts)', () => {
  it('writes an empty block in place of one whose every event matched, and it stays empty after a restart', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(50, { tag: 'gone', index: 'a' }), { wait: true });
      await s.engine.writer.write(makeEvents(30, { tag: 'kept', index: 'b' }), { wait: true });
      await s.engine.flush();
      const f = deleteFilter(spec('tag=gone'), Date.now());
      const names = await s.engine.deleting.begin(f);
      let deleted = 0;
      for (const n of names) deleted += (await s.engine.deleting.rewrite(n, f, () => undefined))?.deleted ?? 0;
      assert.equal(deleted, 50);
      const left = s.engine.listBlocks().find((b) => b.meta.index === 'a');
      assert.equal(left?.meta.count, 0, 'an empty block replaces the old one');
      await s.close({ keep: true });
      const again = await openStorage({ dataDir: s.dataDir });
      try {
        assert.equal(await countWhere(again.engine), 30);
        await again.engine.writer.write(makeEvents(10, { tag: 'new', index: 'a' }), { wait: true });
        await again.engine.flush();
        await again.engine.mergeRound(true);
        assert.equal(await countWhere(again.engine, "tag = 'gone'"), 0);
        assert.equal(await countWhere(again.engine), 40);
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });

  it('leaves the old block or the new one after a crash between the two, never both', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(100, { tag: 'x', startUs: T0 }), { wait: true });
      await s.engine.flush();
      const [old] = s.engine.listBlocks();
      const saved = join(mkdtempSync(join(tmpdir(), 'svc-old-block-')), 'old');
      copyFileSync(old.path, `${saved}.parquet`);
      copyFileSync(old.sidecar, `${saved}.json`);
      const f = deleteFilter(spec('seq<10'), Date.now());
      let inFlight = -1;
      for (const n of await s.engine.deleting.begin(f)) await s.engine.deleting.rewrite(n, f, (d) => (inFlight = d));
      assert.equal(inFlight, 10, 'the swap is announced with the events it deletes');
      await s.close({ keep: true });
      // a crash after the new block's sidecar was written, before the old block's files went
      copyFileSync(`${saved}.parquet`, old.path);
      copyFileSync(`${saved}.json`, old.sidecar);
      const again = await openStorage({ dataDir: s.dataDir });
      try {
        assert.equal(await countWhere(again.engine), 90, 'the old block is dropped: its events are not there twice');
        assert.equal(await countWhere(again.engine, 'seq < 10'), 0);
        assert.equal(existsSync(old.path), false);
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });

  it('matches as the search does: a term found in the message, and a field compared as a number', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(100, { tag: 'x', startUs: T0 }), { wait: true });
      await s.engine.flush();
      // makeEvents: message "event x-<i> status=<ok|failed> Path /api/v<i%5>", field seq = i
      const f = deleteFilter(spec('failed seq>=50'), Date.now());
      let deleted = 0;
      for (const n of await s.engine.deleting.begin(f))
        deleted += (await s.engine.deleting.rewrite(n, f, () => undefined))?.deleted ?? 0;
      assert.equal(deleted, 25, 'odd seq from 51 to 99');
      assert.equal(await countWhere(s.engine), 75);
      assert.equal(await countWhere(s.engine, 'seq >= 50 AND seq % 2 = 1'), 0);
    } finally {
      await s.close();
    }
  });
});
