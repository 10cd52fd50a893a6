import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStorage } from './helpers.js';

describe('the retention sweep timer', () => {
  it('logs a sweep that fails instead of leaving an unhandled rejection (which would end the process)', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const s = await openStorage({ env: { SVC_RETENTION_SWEEP_SECS: '1' } });
    try {
      let sweeps = 0;
      // the listener stands in for any failure inside the sweep (e.g. a block file rmSync cannot remove)
      s.engine.onSweep(() => {
        sweeps++;
        throw new Error('the sweep failed');
      });
      while (sweeps === 0) await sleep(20);
      // an unhandled rejection is reported once the microtasks of the failing turn have run
      await new Promise((r) => setImmediate(r));
      await sleep(0);
      assert.deepEqual(rejections, []);
    } finally {
      process.off('unhandledRejection', onRejection);
      await s.close();
    }
  });
});
