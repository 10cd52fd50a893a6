import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Wal } from '../../src/storage/wal/wal.js';
import { loadBlocks } from '../../src/storage/blocks/block-files.js';
import { countWhere, makeEvents, openStorage } from './helpers.js';

function walFiles(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'wal'))
    .filter((n) => n.endsWith('.ndjson'))
    .sort();
}

/** A data dir holding `n` acknowledged events in one unsealed WAL segment, as svc leaves it when it stops. */
async function stopped(n: number): Promise<string> {
  const s = await openStorage();
  await s.engine.writer.write(makeEvents(n), { wait: true });
  await s.close({ keep: true });
  return s.dataDir;
}

/**
 * Seals the segment of `dataDir` for real, then puts the segment file back: what a crash leaves
 * when it comes after the seal wrote its blocks but before the segment was deleted.
 */
async function sealThenPutSegmentBack(dataDir: string): Promise<{ walDir: string; segName: string }> {
  const walDir = join(dataDir, 'wal');
  const segName = walFiles(dataDir)[0];
  const keep = join(dataDir, 'seg.copy');
  copyFileSync(join(walDir, segName), keep);
  const s = await openStorage({ dataDir });
  await s.engine.flush();
  assert.equal(s.engine.stats().blocks, 1);
  await s.close({ keep: true });
  copyFileSync(keep, join(walDir, segName));
  return { walDir, segName };
}

describe('start-up recovery', () => {
  it('replays unsealed WAL segments: the events are searchable at once and sealed in the background', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(200), { wait: true });
    await s1.close({ keep: true });
    assert.equal(walFiles(s1.dataDir).length, 1);
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(await countWhere(s2.engine), 200);
      assert.equal(await countWhere(s2.engine, 'seq < 10 AND even'), 5);
      await s2.engine.flush();
      assert.deepEqual(s2.engine.stats().liveEvents, 0);
      assert.equal(s2.engine.stats().blockEvents, 200);
      assert.equal(await countWhere(s2.engine), 200);
      assert.deepEqual(walFiles(s2.dataDir), []);
    } finally {
      await s2.close();
    }
  });

  it('rebuilds the live accounting from the segment itself when its summary is missing', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(40), { wait: true });
    await s1.close({ keep: true });
    const seq = Number(walFiles(s1.dataDir)[0].split('.')[0]);
    rmSync(Wal.summaryPath(join(s1.dataDir, 'wal'), seq));
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(await countWhere(s2.engine, 'seq >= 20'), 20);
      assert.deepEqual(
        s2.engine.partitions().map((p) => p.events),
        [40],
      );
      assert.deepEqual(
        s2.engine.fields({ envs: ['default'], indexes: null }).map((f) => [f.name, f.type]),
        [
          ['even', 'boolean'],
          ['ratio', 'number'],
          ['seq', 'number'],
          ['tag', 'string'],
        ],
      );
    } finally {
      await s2.close();
    }
  });

  it('skips a torn last line left by a crash mid-write', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(20), { wait: true });
    await s1.close({ keep: true });
    const seg = join(s1.dataDir, 'wal', walFiles(s1.dataDir)[0]);
    writeFileSync(seg, '{"timeUs":1768046400000000,"env":"def', { flag: 'a' });
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(await countWhere(s2.engine), 20);
      await s2.engine.flush();
      assert.equal(await countWhere(s2.engine), 20);
    } finally {
      await s2.close();
    }
  });

  it('drops the blocks of a seal that never committed and replays its segment exactly once', async () => {
    const dataDir = await stopped(50);
    // the segment back without its marker: as if the crash came after the blocks were written
    // but before the seal committed
    await sealThenPutSegmentBack(dataDir);
    const s3 = await openStorage({ dataDir });
    try {
      assert.equal(await countWhere(s3.engine), 50, 'no duplicates while replaying');
      await s3.engine.flush();
      assert.equal(await countWhere(s3.engine), 50, 'no duplicates once sealed again');
      assert.equal(s3.engine.stats().blocks, 1);
    } finally {
      await s3.close();
    }
  });

  it('treats a segment with a seal marker as sealed: deletes it instead of replaying', async () => {
    const dataDir = await stopped(30);
    const { walDir, segName } = await sealThenPutSegmentBack(dataDir);
    // crash after the marker, before the segment was deleted
    writeFileSync(Wal.markerPath(walDir, Number(segName.split('.')[0])), '');
    const s3 = await openStorage({ dataDir });
    try {
      assert.equal(await countWhere(s3.engine), 30);
      assert.deepEqual(walFiles(s3.dataDir), []);
    } finally {
      await s3.close();
    }
  });

  it('removes a Parquet file that has no sidecar (a block that was never published)', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(10), { wait: true });
    await s1.engine.flush();
    const [b] = s1.engine.listBlocks();
    await s1.close({ keep: true });
    const orphan = b.path.replace(/\.parquet$/, '-orphan.parquet');
    copyFileSync(b.path, orphan);
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      assert.equal(existsSync(orphan), false);
      assert.equal(await countWhere(s2.engine), 10);
    } finally {
      await s2.close();
    }
  });

  it('sets a block with a damaged sidecar aside (quarantine/), reads back what it can, and starts with the rest', async () => {
    const s1 = await openStorage();
    await s1.engine.writer.write(makeEvents(30, { index: 'a' }), { wait: true });
    await s1.engine.writer.write(makeEvents(20, { index: 'b' }), { wait: true });
    await s1.engine.writer.write(makeEvents(10, { index: 'c' }), { wait: true });
    await s1.engine.flush();
    const blocks = s1.engine.listBlocks();
    await s1.close({ keep: true });
    const byIndex = new Map(blocks.map((b) => [b.meta.index, b]));
    const cut = byIndex.get('a')!;
    const wrong = byIndex.get('b')!;
    // a sidecar cut short, and one whose count is not a number
    writeFileSync(cut.sidecar, readFileSync(cut.sidecar, 'utf8').slice(0, 40));
    writeFileSync(wrong.sidecar, JSON.stringify({ ...wrong.meta, count: 'many' }));
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      // the cut sidecar no longer says where else its events may be: its block stays aside;
      // the other still does (a committed seal): its Parquet rows are sealed again into a new block
      assert.equal(await countWhere(s2.engine), 30, 'index b read back, index c intact');
      assert.deepEqual(
        s2.engine
          .listBlocks()
          .map((b) => b.meta.index)
          .sort(),
        ['b', 'c'],
      );
      assert.equal(await countWhere(s2.engine, "\"index\" = 'b' AND seq = 19 AND tag = 'x'"), 1);
      const rel = (b: typeof cut) => relative(join(s1.dataDir, 'blocks'), b.path);
      assert.equal(existsSync(cut.path), false);
      assert.ok(existsSync(join(s1.dataDir, 'quarantine', rel(cut))), `${rel(cut)} moved to quarantine`);
      assert.ok(existsSync(join(s1.dataDir, 'quarantine', rel(cut).replace(/\.parquet$/, '.json'))));
      assert.equal(
        existsSync(join(s1.dataDir, 'quarantine', rel(wrong))),
        false,
        'read back, then removed from quarantine',
      );
    } finally {
      await s2.close();
    }
  });

  it('does not read back a damaged block of a seal that never committed: its events come from the WAL, once', async () => {
    const s0 = await stopped(25);
    await sealThenPutSegmentBack(s0);
    const [b] = loadBlocks(join(s0, 'blocks'), () => undefined);
    writeFileSync(b.sidecar, JSON.stringify({ ...b.meta, count: 'many' }));
    const s = await openStorage({ dataDir: s0 });
    try {
      assert.equal(await countWhere(s.engine), 25);
      await s.engine.flush();
      assert.equal(await countWhere(s.engine), 25);
    } finally {
      await s.close();
    }
  });

  it('keeps the node id across restarts and honours SVC_NODE_ID', async () => {
    const s1 = await openStorage();
    const id = s1.engine.nodeId;
    await s1.close({ keep: true });
    const s2 = await openStorage({ dataDir: s1.dataDir });
    assert.equal(s2.engine.nodeId, id);
    await s2.close({ keep: true });
    const s3 = await openStorage({ dataDir: s1.dataDir, env: { SVC_NODE_ID: 'node-a' } });
    assert.equal(s3.engine.nodeId, 'node-a');
    await s3.close();
  });
});
