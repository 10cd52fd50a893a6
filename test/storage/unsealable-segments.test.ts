import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEvent } from '../../src/events/event.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import { LiveSegment } from '../../src/storage/wal/live-segment.js';
import { writeSummary } from '../../src/storage/wal/segment-summary.js';
import { Wal } from '../../src/storage/wal/wal.js';
import type { StorageProblem } from '../../src/storage/problems.js';
import { MAX_EVENT_US, MIN_EVENT_US } from '../../src/events/timestamp.js';
import { countWhere, makeEvents, openStorage, T0 } from './helpers.js';
import { writeFileSync } from 'node:fs';

// WAL segments as an older svc could leave them (before the store guarded its lines): a line
// DuckDB cannot read (over its 16 MiB object limit; 36 MiB is past its 2 × 16 MiB buffer), times
// outside years 1..9999. Each is written by hand, as it would be on disk.

/** Over DuckDB's read buffer for JSON objects: its read_json fails on the whole file. */
const HUGE = 36 * 1024 * 1024;

function event(i: number, o: Partial<LogEvent> = {}): LogEvent {
  return {
    timeUs: T0 + i * 1_000_000,
    env: 'default',
    index: 'main',
    host: 'h',
    source: 's',
    sourcetype: 't',
    message: `old event ${i}`,
    fields: { seq: i },
    ...o,
  };
}

/** Writes segment `seq` of `dataDir` by hand; with `summary`, the accounting an older svc wrote beside it. */
function handSegment(dataDir: string, seq: number, events: LogEvent[], o: { summary?: boolean } = {}): void {
  const walDir = join(dataDir, 'wal');
  mkdirSync(walDir, { recursive: true });
  // JSON.stringify writes 1e308 as 1e+308, as an older svc did
  writeFileSync(Wal.segmentPath(walDir, seq), events.map((e) => JSON.stringify(e) + '\n').join(''));
  if (!o.summary) return;
  const seg = new LiveSegment(seq, Wal.segmentPath(walDir, seq));
  for (const e of events) seg.record(e);
  writeSummary(walDir, seg);
}

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-unsealable-'));
}

describe('segments an older svc could not seal', () => {
  it('rewrites a segment holding a 36 MiB line at start: its events are all searchable, sealed, also after a restart', async () => {
    const dataDir = freshDir();
    handSegment(dataDir, 1, [event(0), event(1, { message: 'y'.repeat(HUGE) }), event(2)]);
    const s1 = await openStorage({ dataDir });
    assert.equal(await countWhere(s1.engine), 3);
    await s1.engine.flush();
    assert.deepEqual(
      { live: s1.engine.stats().liveEvents, sealed: s1.engine.stats().blockEvents },
      { live: 0, sealed: 3 },
    );
    await s1.close({ keep: true });
    const s2 = await openStorage({ dataDir });
    try {
      assert.equal(await countWhere(s2.engine), 3);
      // the long message is cut to SVC_MAX_EVENT_BYTES (1 MiB) and marked with its original size
      assert.equal(await countWhere(s2.engine, `svc_truncated > ${HUGE} AND strlen(message) = 1048576 AND seq = 1`), 1);
      assert.equal(await countWhere(s2.engine, 'svc_truncated IS NULL'), 2);
    } finally {
      await s2.close();
    }
  });

  it('seals a live segment whose 36 MiB line its summary counted (the seal fails, the segment is rewritten, then sealed)', async () => {
    const dataDir = freshDir();
    handSegment(dataDir, 1, [event(0), event(1, { message: 'z'.repeat(HUGE) }), event(2)], { summary: true });
    const s = await openStorage({ dataDir });
    const told: StorageProblem[] = [];
    s.engine.onProblem((p) => told.push(p));
    try {
      // a search before the rewrite leaves the segment out and says so; after it, reads it all: never fails
      const n = await countWhere(s.engine);
      assert.ok(
        n === 3 || (n === 0 && s.engine.readWarnings(['default']).length === 1),
        `${n} events, warnings ${s.engine.readWarnings().join('; ')}`,
      );
      await s.engine.flush();
      assert.equal(s.engine.stats().blockEvents, 3);
      assert.equal(await countWhere(s.engine), 3);
      assert.deepEqual(s.engine.readWarnings(), []);
      assert.ok(!readdirSync(join(dataDir, 'wal')).includes('000000000001.ndjson'));
      // told once when it failed, and told over once it sealed
      const seal = told.filter((p) => p.kind === 'seal_failed');
      assert.deepEqual(
        seal.map((p) => Boolean(p.resolved)),
        [false, true],
      );
      for (const p of told.filter((p) => p.kind === 'segment_unreadable'))
        assert.ok(told.some((q) => q.kind === p.kind && q.resolved));
    } finally {
      await s.close();
    }
  });

  it('answers every write while six such segments wait for their seal, and seals them all', async () => {
    const dataDir = freshDir();
    for (let seq = 1; seq <= 6; seq++)
      handSegment(dataDir, seq, [event(seq * 10), event(seq * 10 + 1, { message: 'w'.repeat(HUGE) })], {
        summary: true,
      });
    const s = await openStorage({ dataDir, tuning: { maxUnsealedSegments: 6 } });
    try {
      const writes = Array.from({ length: 20 }, (_, i) =>
        s.engine.writer.write(makeEvents(50, { tag: `new${i}` }), { wait: i % 2 === 0 }),
      );
      const settled = await Promise.all(
        writes.map((w) =>
          w.then(
            () => 'ok',
            (e: unknown) => (isSvcError(e) ? e.code : String(e)),
          ),
        ),
      );
      // waiting writes are committed; the others are committed or told queue_full at once (429), never left hanging
      assert.ok(
        settled.every((r) => r === 'ok' || r === 'queue_full'),
        settled.join(', '),
      );
      assert.ok(settled.filter((_, i) => i % 2 === 0).every((r) => r === 'ok'));
      const acked = settled.filter((r) => r === 'ok').length * 50;
      await s.engine.flush();
      assert.equal(s.engine.stats().liveEvents, 0);
      assert.equal(await countWhere(s.engine), 12 + acked);
    } finally {
      await s.close();
    }
  });

  it('gives events with times outside years 1..9999 their arrival time, keeps the original in time_original, and seals them', async () => {
    const dataDir = freshDir();
    const times = [253402300800000000 /* year 10000 */, -62167219200000000 /* year 0 */, 1e308];
    handSegment(dataDir, 1, [event(0), ...times.map((t, i) => event(i + 1, { timeUs: t }))]);
    const s1 = await openStorage({ dataDir });
    await s1.engine.flush();
    await s1.close({ keep: true });
    const s2 = await openStorage({ dataDir });
    try {
      assert.equal(await countWhere(s2.engine), 4);
      assert.equal(
        await countWhere(
          s2.engine,
          "time_original IN ('+010000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '1e+308')",
        ),
        3,
      );
      for (const p of s2.engine.partitions()) assert.ok(p.minTimeUs >= MIN_EVENT_US && p.maxTimeUs <= MAX_EVENT_US);
    } finally {
      await s2.close();
    }
  });

  it('sets aside a segment that cannot be sealed even rewritten: its events stay searchable, it is told once, and later segments seal', async () => {
    const s = await openStorage({ tuning: { maxUnsealedSegments: 1 } });
    const told: StorageProblem[] = [];
    s.engine.onProblem((p) => told.push(p));
    try {
      // an index name no directory can have (over NAME_MAX): no block can be written for it
      await s.engine.writer.write(makeEvents(5, { index: 'i'.repeat(300), tag: 'aside' }), { wait: true });
      await s.engine.flush();
      assert.equal(s.engine.stats().liveEvents, 5);
      assert.deepEqual(told.filter((p) => p.kind === 'segment_set_aside' && !p.resolved).length, 1);
      // the backlog of one is not held by it: the next segments are written and sealed
      for (let i = 0; i < 3; i++) {
        await s.engine.writer.write(makeEvents(10, { tag: `after${i}` }), { wait: true });
        await s.engine.flush();
      }
      assert.equal(s.engine.stats().blockEvents, 30);
      assert.equal(await countWhere(s.engine, "tag = 'aside'"), 5);
      assert.equal(await countWhere(s.engine), 35);
    } finally {
      await s.close();
    }
  });

  it('guards new writes the same way: a 36 MiB message is cut and a year-10000 time replaced, at once searchable', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write([event(0, { message: 'x'.repeat(HUGE) }), event(1, { timeUs: 253402300800000000 })], {
        wait: true,
      });
      assert.equal(await countWhere(s.engine, 'svc_truncated IS NOT NULL'), 1);
      assert.equal(await countWhere(s.engine, 'time_original IS NOT NULL AND year(_time) < 10000'), 1);
      await s.engine.flush();
      assert.equal(s.engine.stats().blockEvents, 2);
    } finally {
      await s.close();
    }
  });

  it('keeps events whose strings hold a lone surrogate: searchable live with U+FFFD in its place, and sealed', async () => {
    const s = await openStorage();
    try {
      // JSON.stringify writes \ud800 for a lone surrogate, which DuckDB's JSON reader refuses: the
      // line read as NULLs, the event was gone from search and its segment could not be sealed
      const odd = [
        event(0, { message: 'half \ud800 pair' }),
        event(1, { fields: { '\udc00key': 'v', seq: 1 } }),
        event(2, { fields: { seq: 2, v: 'x\udbff' } }),
        event(3, { message: 'a literal \\ud800 stays' }),
      ];
      await s.engine.writer.write(odd, { wait: true });
      assert.equal(await countWhere(s.engine), 4);
      assert.equal(await countWhere(s.engine, "message = 'half \ufffd pair'"), 1);
      assert.equal(await countWhere(s.engine, "v = 'x\ufffd'"), 1);
      assert.equal(await countWhere(s.engine, "message = 'a literal \\ud800 stays'"), 1);
      await s.engine.flush();
      assert.deepEqual(
        { live: s.engine.stats().liveEvents, sealed: s.engine.stats().blockEvents },
        { live: 0, sealed: 4 },
      );
    } finally {
      await s.close();
    }
  });

  it('seals a segment an older svc wrote with lone surrogates, losing no event', async () => {
    const dataDir = freshDir();
    handSegment(dataDir, 1, [
      event(0),
      event(1, { message: 'half \ud800' }),
      event(2, { fields: { '\ud800': 'v', seq: 2 } }),
    ]);
    const s1 = await openStorage({ dataDir });
    try {
      assert.equal(await countWhere(s1.engine), 3);
      await s1.engine.flush();
      assert.equal(s1.engine.stats().blockEvents, 3);
      assert.equal(await countWhere(s1.engine, "message = 'half \ufffd'"), 1);
    } finally {
      await s1.close();
    }
  });
});
