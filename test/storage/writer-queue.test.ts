import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../src/errors/svc-error.js';
import { WriterQueue } from '../../src/storage/wal/writer-queue.js';
import { countWhere, makeEvents, openStorage } from './helpers.js';

describe('writer queue', () => {
  it('rejects at once with queue_full and a retry hint when full and the caller will not wait', async () => {
    const s = await openStorage({ env: { SVC_TEST_HOLD_WRITER: '1', SVC_BLOCK_QUEUE_CAP: '100' } });
    try {
      const first = s.engine.writer.write(makeEvents(80), { wait: true });
      assert.deepEqual(s.engine.writer.queueDepth(), { queued: 80, capacity: 100 });
      await assert.rejects(s.engine.writer.write(makeEvents(30), { wait: false }), (e: unknown) => {
        assert.ok(e instanceof SvcError);
        assert.equal(e.code, 'queue_full');
        assert.ok((e.retryAfterSecs ?? 0) > 0);
        return true;
      });
      // what still fits is accepted
      const small = s.engine.writer.write(makeEvents(20, { tag: 'small' }), { wait: false });
      s.engine.releaseWriter();
      await Promise.all([first, small]);
      assert.equal(await countWhere(s.engine), 100);
    } finally {
      await s.close();
    }
  });

  it('makes a waiting caller wait for room, then acknowledges it', async () => {
    const s = await openStorage({ env: { SVC_TEST_HOLD_WRITER: '1', SVC_BLOCK_QUEUE_CAP: '100' } });
    try {
      const first = s.engine.writer.write(makeEvents(100), { wait: true });
      let secondDone = false;
      const second = s.engine.writer
        .write(makeEvents(50, { tag: 'late' }), { wait: true })
        .then(() => (secondDone = true));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(secondDone, false, 'waits while the queue is full');
      assert.equal(s.engine.writer.queueDepth().queued, 100);
      s.engine.releaseWriter();
      await Promise.all([first, second]);
      assert.equal(await countWhere(s.engine), 150);
      assert.equal(await countWhere(s.engine, "tag = 'late'"), 50);
    } finally {
      await s.close();
    }
  });

  it('admits a batch larger than the whole capacity when the queue is empty', async () => {
    const s = await openStorage({ env: { SVC_BLOCK_QUEUE_CAP: '10' } });
    try {
      await s.engine.writer.write(makeEvents(25), { wait: false });
      assert.equal(await countWhere(s.engine), 25);
    } finally {
      await s.close();
    }
  });

  it('tells a caller that will not wait queue_full at once while commits wait for the seal backlog, though the queue has room', async () => {
    // the commit stands for the engine's, held back by the seal backlog until `sealed` runs
    let sealed!: () => void;
    const backlog = new Promise<void>((r) => (sealed = r));
    let waiting = true;
    const q = new WriterQueue(1000, () => backlog, { backedUp: () => waiting });
    const held = q.write(makeEvents(10), { wait: true });
    await assert.rejects(
      q.write(makeEvents(10), { wait: false }),
      (e: unknown) => e instanceof SvcError && e.code === 'queue_full' && (e.retryAfterSecs ?? 0) > 0,
    );
    assert.deepEqual(q.queueDepth(), { queued: 10, capacity: 1000 });
    waiting = false;
    sealed();
    await held;
    await q.write(makeEvents(10), { wait: false });
  });

  it('shares one fsync among concurrent batches and acknowledges each', async () => {
    const s = await openStorage();
    try {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.engine.writer.write(makeEvents(10, { tag: `b${i}` }), { wait: true })),
      );
      assert.equal(await countWhere(s.engine), 200);
      assert.equal(await countWhere(s.engine, "tag = 'b7'"), 10);
    } finally {
      await s.close();
    }
  });
});

describe('writer queue shutdown', () => {
  it('rejects the batches of a held queue with shutting_down when storage closes', async () => {
    const s = await openStorage({ env: { SVC_TEST_HOLD_WRITER: '1' } });
    const pending = s.engine.writer.write(makeEvents(5), { wait: true });
    await s.close();
    await assert.rejects(pending, (e: unknown) => e instanceof SvcError && e.code === 'shutting_down');
    await assert.rejects(
      s.engine.writer.write(makeEvents(1), { wait: true }),
      (e: unknown) => e instanceof SvcError && e.code === 'shutting_down',
    );
  });
});
