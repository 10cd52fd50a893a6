import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ManualClock } from '../../src/clock/clock.js';
import { MemoryControl, countWhere, makeEvents, openStorage } from './helpers.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const daysAgo = (d: number) => (NOW - d * 86_400_000) * 1000;

/** Events in env `env`, 10 per day for the given ages in days; sealed. */
async function seed(s: Awaited<ReturnType<typeof openStorage>>, env: string, ages: number[]): Promise<void> {
  for (const age of ages)
    await s.engine.writer.write(makeEvents(10, { env, startUs: daysAgo(age) - 3600_000_000, tag: `${env}${age}` }), {
      wait: true,
    });
  await s.engine.flush();
}

describe('retention', () => {
  it('keeps everything when no retention is set anywhere', async () => {
    const s = await openStorage({ clock: new ManualClock(NOW) });
    try {
      await seed(s, 'default', [1, 100, 1000]);
      const r = await s.engine.sweep();
      assert.equal(r.deletedBlocks, 0);
      assert.equal(await countWhere(s.engine), 30);
    } finally {
      await s.close();
    }
  });

  it('deletes whole blocks past the global default and nothing newer', async () => {
    const s = await openStorage({ clock: new ManualClock(NOW), env: { SVC_RETENTION_DEFAULT_DAYS: '7' } });
    try {
      await seed(s, 'default', [1, 6, 8, 30]);
      const doomed = s.engine.listBlocks().filter((b) => b.meta.maxUs < daysAgo(7));
      const r = await s.engine.sweep();
      assert.equal(r.deletedBlocks, 2);
      assert.equal(r.deletedEvents, 20);
      assert.deepEqual(r.blocks.map((b) => b.env + '/' + b.index).sort(), ['default/main', 'default/main']);
      for (const b of doomed) assert.equal(existsSync(b.path), false);
      assert.equal(await countWhere(s.engine), 20);
      assert.equal(await countWhere(s.engine, "tag = 'default6'"), 10);
      assert.equal((await s.engine.sweep()).deletedBlocks, 0, 'a second sweep finds nothing');
    } finally {
      await s.close();
    }
  });

  it('lets a per-environment override beat the default, both shorter and longer', async () => {
    const control = new MemoryControl();
    control.setEnv('short', 2);
    control.setEnv('long', 365);
    control.settingsValue = { retentionDefaultDays: 10 };
    const s = await openStorage({ clock: new ManualClock(NOW), control });
    try {
      await seed(s, 'default', [5, 20]);
      await seed(s, 'short', [1, 5]);
      await seed(s, 'long', [5, 20, 400]);
      const r = await s.engine.sweep();
      assert.deepEqual(r.blocks.map((b) => `${b.env}:${b.day}`).sort(), [
        `default:${new Date(daysAgo(20) / 1000).toISOString().slice(0, 10)}`,
        `long:${new Date(daysAgo(400) / 1000).toISOString().slice(0, 10)}`,
        `short:${new Date(daysAgo(5) / 1000).toISOString().slice(0, 10)}`,
      ]);
      const left = s.engine.partitions().map((p) => [p.env, p.events]);
      assert.deepEqual(left, [
        ['default', 10],
        ['long', 20],
        ['short', 10],
      ]);
    } finally {
      await s.close();
    }
  });

  it('prefers SVC_RETENTION_DEFAULT_DAYS over the admin General setting', async () => {
    const control = new MemoryControl();
    control.settingsValue = { retentionDefaultDays: 1 };
    const s = await openStorage({ clock: new ManualClock(NOW), control, env: { SVC_RETENTION_DEFAULT_DAYS: '30' } });
    try {
      await seed(s, 'default', [3, 40]);
      const r = await s.engine.sweep();
      assert.equal(r.deletedEvents, 10);
      assert.equal(await countWhere(s.engine, "tag = 'default3'"), 10);
    } finally {
      await s.close();
    }
  });

  it('does not delete a block while a scan is reading it, and deletes it right after', async () => {
    const s = await openStorage({ clock: new ManualClock(NOW), env: { SVC_RETENTION_DEFAULT_DAYS: '1' } });
    try {
      await seed(s, 'default', [10]);
      const [b] = s.engine.listBlocks();
      await s.engine.scan({ envs: ['default'], indexes: null, requiredTokens: [], fields: [] }, async (rel, exec) => {
        const r = await s.engine.sweep();
        assert.equal(r.deletedBlocks, 1);
        assert.equal(existsSync(b.path), true, 'still there for the running scan');
        const c = await exec(`SELECT count(*) FROM ${rel.sql} AS e`);
        assert.equal(c.rows[0][0], 10);
      });
      assert.equal(existsSync(b.path), false);
      assert.equal(await countWhere(s.engine), 0);
    } finally {
      await s.close();
    }
  });
});
