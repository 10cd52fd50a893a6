import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duck } from '../../src/storage/duck.js';
import { encodeBatch } from '../../src/storage/wal/batch-encode.js';
import { LiveSegment } from '../../src/storage/wal/live-segment.js';
import { writeColumns } from '../../src/storage/wal/live-columns.js';
import { planScan } from '../../src/storage/read/scan-plan.js';
import { relationSql } from '../../src/storage/read/relation-sql.js';
import { writeSegmentBlocks } from '../../src/storage/seal.js';
import type { LogEvent } from '../../src/events/event.js';
import type { ScanSpec } from '../../src/storage/types.js';
import { T0, countWhere, makeEvents, openStorage } from './helpers.js';

const DAY_US = 86_400_000_000;

/** Events over five days and two envs, with fields of every kind, some absent, one core field missing. */
function events(): LogEvent[] {
  return makeEvents(3000, { stepUs: 150_000_000 }).map((e, i) => {
    const ev: LogEvent = { ...e, env: i % 7 === 0 ? 'other' : 'default' };
    if (i % 11 === 0) ev.fields = { ...ev.fields, only_some: `v${i}`, nested_flat: i % 3 === 0 };
    if (i % 13 === 0) ev.host = undefined as unknown as string;
    return ev;
  });
}

/** A closed segment file of `evs` with its live accounting, as the writer leaves it. */
function segmentOf(dir: string, evs: LogEvent[]): LiveSegment {
  const b = encodeBatch(evs);
  const path = join(dir, '000000000001.ndjson');
  writeFileSync(path, b.wal);
  const seg = new LiveSegment(1, path);
  seg.absorb(b.parts);
  return seg;
}

describe('columnar copies of live segments', () => {
  let dir: string;
  let duck: Duck;
  let seg: LiveSegment;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-live-columns-'));
    duck = await Duck.open({ dataDir: dir, memoryLimit: '512MB', threads: 2 });
    seg = segmentOf(dir, events());
  });
  after(() => {
    duck.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every row of the scan relation over `seg`, in one order, as JSON text (exact value and type). */
  const rows = async (spec: Partial<ScanSpec>) => {
    const full: ScanSpec = { envs: ['default'], indexes: null, requiredTokens: [], fields: '*', ...spec };
    const plan = planScan([], [seg], full);
    const r = await duck.query(
      `SELECT to_json(e)::VARCHAR FROM ${relationSql(plan, full)} AS e ORDER BY _time, message`,
    );
    return { fields: [...plan.fields], rows: r.rows.map((x) => String(x[0])) };
  };

  it('answers every search exactly as the WAL JSON does', async () => {
    const specs: Partial<ScanSpec>[] = [
      {},
      { envs: ['default', 'other'] },
      { fromUs: T0 + DAY_US, toUs: T0 + 2.5 * DAY_US },
      { indexes: ['nope'] },
    ];
    const fromJson = [];
    for (const s of specs) fromJson.push(await rows(s));
    await duck.with((c) => writeColumns(c, seg, dir));
    assert.ok(seg.columns && existsSync(seg.columns), 'the copy was made');
    for (const [i, s] of specs.entries()) {
      const fromCopy = await rows(s);
      assert.deepEqual(fromCopy.fields, fromJson[i].fields);
      assert.equal(fromCopy.rows.length, fromJson[i].rows.length);
      assert.deepEqual(fromCopy.rows, fromJson[i].rows);
    }
    // the oracle: the events themselves
    const all = await rows({ envs: ['default', 'other'] });
    assert.equal(all.rows.length, events().length);
    assert.equal((await rows({})).rows.length, events().filter((e) => e.env === 'default').length);
  });

  it('seals from the copy into the same blocks as from the JSON', async () => {
    const target = (root: string) => ({
      root,
      node: 'n',
      nextSeq: (() => {
        let n = 0;
        return () => ++n;
      })(),
    });
    const contents = async (blocks: { path: string }[]) => {
      const r = await duck.query(
        `SELECT to_json(b)::VARCHAR FROM read_parquet([${blocks.map((b) => `'${b.path}'`).join(', ')}], union_by_name=true) AS b ORDER BY _time, message`,
      );
      return r.rows.map((x) => String(x[0]));
    };
    const fromCopy = await writeSegmentBlocks(duck, seg, target(join(dir, 'a')), dir);
    const columns = seg.columns;
    seg.columns = undefined;
    const fromJson = await writeSegmentBlocks(duck, seg, target(join(dir, 'b')), dir);
    seg.columns = columns;
    assert.equal(fromCopy.length, seg.partitions.size);
    assert.deepEqual(
      fromCopy.map((b) => [b.meta.env, b.meta.day, b.meta.count, b.meta.fields]),
      fromJson.map((b) => [b.meta.env, b.meta.day, b.meta.count, b.meta.fields]),
    );
    assert.deepEqual(await contents(fromCopy), await contents(fromJson));
  });
});

describe('columnar copies in the engine', () => {
  it('copies a segment spread over many days, seals from it, and leaves no copy behind', async () => {
    // 12 KiB segments: the 5-day batch closes several segments of more than two partitions each
    const s = await openStorage({ tuning: { segmentBytes: 12 * 1024 } });
    try {
      const evs = events();
      await s.engine.writer.write(evs, { wait: true });
      assert.equal(await countWhere(s.engine, 'true', { envs: ['default', 'other'] }), evs.length);
      await s.engine.flush();
      assert.equal(s.engine.stats().liveSegments, 0);
      assert.equal(await countWhere(s.engine, 'true', { envs: ['default', 'other'] }), evs.length);
      assert.equal(
        await countWhere(s.engine, "host = ''", { envs: ['default', 'other'] }),
        evs.filter((e) => !e.host).length,
      );
      assert.deepEqual(
        readdirSync(join(s.dataDir, 'tmp')).filter((n) => n.endsWith('.parquet')),
        [],
      );
    } finally {
      await s.close();
    }
  });

  it('clears copies a crash left behind at the next start', async () => {
    const s = await openStorage();
    await s.close({ keep: true });
    const stray = join(s.dataDir, 'tmp', 'live-000000000007.parquet');
    writeFileSync(stray, 'half a parquet file');
    const again = await openStorage({ dataDir: s.dataDir });
    try {
      assert.equal(existsSync(stray), false);
    } finally {
      await again.close();
    }
  });
});
