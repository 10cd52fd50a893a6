import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { LogEvent } from '../../src/events/event.js';
import type { StorageEngine } from '../../src/storage/engine.js';
import type { BucketCountSpec } from '../../src/storage/types.js';
import { LiveSegment } from '../../src/storage/wal/live-segment.js';
import { parseSummary, summaryJson } from '../../src/storage/wal/segment-summary.js';
import { encodeBatch } from '../../src/storage/wal/batch-encode.js';
import { planBuckets } from '../../src/storage/read/bucket-counts.js';
import { openStorage } from './helpers.js';

/**
 * EventStore.countByBucket against two independent answers: a DuckDB count over the scan relation
 * of the same spec, and the test's own count of the events it wrote.
 */
const MIN = 60_000_000;
const HOUR = 60 * MIN;
const DAY0 = Date.UTC(2026, 2, 3) * 1000;

/** Deterministic pseudo-random events (µs times, not minute-aligned) over `days` days from `startUs`. */
function randomEvents(n: number, seed: number, startUs = DAY0, days = 3): LogEvent[] {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: LogEvent[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      timeUs: startUs + Math.floor(rnd() * days * 24 * HOUR),
      env: rnd() < 0.2 ? 'other' : 'default',
      index: rnd() < 0.5 ? 'web' : 'app',
      host: `h${i % 4}`,
      source: 's',
      sourcetype: 't',
      message: `m ${i}`,
      fields: { i },
    });
  }
  return out;
}

const ALL: BucketCountSpec = { envs: ['default'], indexes: null };

function expected(events: LogEvent[], spec: BucketCountSpec, spanUs: number): [number, number][] {
  const acc = new Map<number, number>();
  for (const e of events) {
    if (!spec.envs.includes(e.env) || (spec.indexes !== null && !spec.indexes.includes(e.index))) continue;
    if ((spec.fromUs !== undefined && e.timeUs < spec.fromUs) || (spec.toUs !== undefined && e.timeUs >= spec.toUs))
      continue;
    const b = Math.floor(e.timeUs / spanUs);
    acc.set(b, (acc.get(b) ?? 0) + 1);
  }
  return [...acc].sort((a, b) => a[0] - b[0]);
}

async function rowCounts(
  engine: StorageEngine,
  spec: BucketCountSpec,
  spanUs: number,
): Promise<{ buckets: [number, number][]; candidates: number }> {
  return engine.scan({ ...spec, requiredTokens: [], fields: [] }, async (rel, exec) => {
    const r = await exec(`SELECT epoch_us(_time) // ${spanUs}, count(*) FROM ${rel.sql} AS e GROUP BY 1 ORDER BY 1`);
    return {
      buckets: r.rows.map(([b, n]) => [Number(b), Number(n)] as [number, number]),
      candidates: rel.candidateEvents,
    };
  });
}

/** Asserts countByBucket equals the row count and the test's own count; returns its answer. */
async function check(engine: StorageEngine, events: LogEvent[], spec: BucketCountSpec, spanUs: number, label: string) {
  const got = await engine.countByBucket(spec, spanUs);
  const rows = await rowCounts(engine, spec, spanUs);
  assert.deepEqual(got.buckets, rows.buckets, `${label}: same as DuckDB over the rows`);
  assert.deepEqual(got.buckets, expected(events, spec, spanUs), `${label}: same as the events written`);
  assert.equal(got.candidateEvents, rows.candidates, `${label}: candidate events as the scan`);
  assert.equal(
    got.fromMetadata + got.fromRows,
    got.buckets.reduce((s, [, n]) => s + n, 0),
    `${label}: every event counted once`,
  );
  return got;
}

/** Ranges that cut through blocks and live data at odd microseconds, on minute edges, and inside one minute. */
function ranges(): [string, BucketCountSpec][] {
  return [
    ['unbounded', ALL],
    ['from inside a day', { ...ALL, fromUs: DAY0 + 13 * HOUR + 17 * MIN + 123_457 }],
    ['to inside a day', { ...ALL, toUs: DAY0 + 40 * HOUR + 3 * MIN + 999_999 }],
    [
      'both inside one day, web only',
      { ...ALL, indexes: ['web'], fromUs: DAY0 + 25 * HOUR + 1, toUs: DAY0 + 47 * HOUR - 1 },
    ],
    ['whole minutes', { ...ALL, fromUs: DAY0 + 90 * MIN, toUs: DAY0 + 50 * HOUR }],
    [
      'inside one minute',
      {
        envs: ['default', 'other'],
        indexes: null,
        fromUs: DAY0 + 30 * HOUR + 10_000_000,
        toUs: DAY0 + 30 * HOUR + 50_000_000,
      },
    ],
    ['only the live days', { ...ALL, fromUs: DAY0 + 3 * 24 * HOUR + 5 * MIN + 7 }],
    ['nothing', { ...ALL, fromUs: DAY0 - 10 * HOUR, toUs: DAY0 - HOUR }],
  ];
}

describe('counts per time bucket from minute counts', () => {
  it('equals a row count over sealed blocks and live data, for cut ranges and minute-multiple spans', async () => {
    const s = await openStorage();
    try {
      // three events right at the "from inside a day" bound (one just before it), so its edge minute is read
      const bound = ranges()[1][1].fromUs!;
      const atBound = [-1, 0, 1].map((d, i) => ({ ...randomEvents(1, 50 + i)[0], env: 'default', timeUs: bound + d }));
      const sealed = [...randomEvents(6000, 7), ...atBound];
      await s.engine.writer.write(sealed, { wait: true });
      await s.engine.flush();
      // live: overlapping the sealed days and one day after them
      const live = [...randomEvents(1500, 11), ...randomEvents(800, 13, DAY0 + 3 * 24 * HOUR, 1)];
      await s.engine.writer.write(live, { wait: true });
      assert.ok(s.engine.stats().liveEvents > 0 && s.engine.stats().blocks > 0, 'both blocks and live data');
      assert.ok(
        s.engine.listBlocks().every((b) => b.minutes !== undefined),
        'new blocks carry minute counts',
      );
      const events = [...sealed, ...live];
      for (const [label, spec] of ranges()) {
        for (const span of [MIN, 5 * MIN, 7 * MIN, HOUR, 24 * HOUR])
          await check(s.engine, events, spec, span, `${label}, span ${span / MIN}m`);
      }
      const whole = await s.engine.countByBucket(ALL, HOUR);
      assert.equal(whole.fromRows, 0, 'an unbounded range reads no rows');
      const edge = await s.engine.countByBucket(ranges()[1][1], HOUR);
      assert.ok(edge.fromRows >= 2, 'the events of the edge minute inside the range come from rows');
      const cut = await check(s.engine, events, ranges()[3][1], HOUR, 'cut');
      assert.ok(
        cut.fromRows < 20 && cut.fromMetadata > 500,
        `only the sub-minute edges are read (${cut.fromRows} rows, ${cut.fromMetadata} from metadata)`,
      );
    } finally {
      await s.close();
    }
  });

  it('reads rows for a span that is not a whole number of minutes', async () => {
    const s = await openStorage();
    try {
      const events = randomEvents(2000, 3);
      await s.engine.writer.write(events, { wait: true });
      await s.engine.flush();
      for (const span of [30_000_000, 90_000_000, 1_000_000]) {
        const got = await check(s.engine, events, { ...ALL, fromUs: DAY0 + HOUR + 1 }, span, `span ${span / 1e6}s`);
        assert.equal(got.fromMetadata, 0);
      }
    } finally {
      await s.close();
    }
  });

  it('keeps exact minute counts through merges', async () => {
    const s = await openStorage();
    try {
      const events: LogEvent[] = [];
      for (let i = 0; i < 4; i++) {
        const batch = randomEvents(700, 100 + i, DAY0, 1).map((e) => ({ ...e, env: 'default', index: 'web' }));
        events.push(...batch);
        await s.engine.writer.write(batch, { wait: true });
        await s.engine.flush();
      }
      assert.equal(await s.engine.mergeRound(true), 1);
      const [merged] = s.engine.listBlocks();
      assert.equal(s.engine.listBlocks().length, 1);
      assert.equal(
        merged.minutes?.counts.reduce((a, b) => a + b, 0),
        2800,
      );
      for (const [label, spec] of ranges()) await check(s.engine, events, spec, 5 * MIN, `merged, ${label}`);
    } finally {
      await s.close();
    }
  });

  it('reads the rows of blocks whose sidecar predates minute counts', async () => {
    const s1 = await openStorage();
    const events = randomEvents(3000, 5);
    await s1.engine.writer.write(events, { wait: true });
    await s1.engine.flush();
    const old = s1.engine.listBlocks()[0];
    await s1.close({ keep: true });
    const meta = JSON.parse(readFileSync(old.sidecar, 'utf8')) as Record<string, unknown>;
    delete meta.minuteCounts;
    writeFileSync(old.sidecar, JSON.stringify(meta));
    const s2 = await openStorage({ dataDir: s1.dataDir });
    try {
      const blocks = s2.engine.listBlocks();
      assert.equal(blocks.find((b) => b.path === old.path)?.minutes, undefined, 'an old sidecar loads without counts');
      assert.ok(blocks.filter((b) => b.path !== old.path).every((b) => b.minutes));
      for (const [label, spec] of ranges()) await check(s2.engine, events, spec, HOUR, `old sidecar, ${label}`);
      const whole = await s2.engine.countByBucket({ envs: [old.meta.env], indexes: [old.meta.index] }, HOUR);
      assert.equal(whole.fromRows, old.meta.count, 'the old block alone is read');
    } finally {
      await s2.close();
    }
  });
});

describe('live minute counts', () => {
  const events = randomEvents(500, 21);

  function minutesOf(evs: LogEvent[], env: string, index: string, day: number): Map<number, number> {
    const m = new Map<number, number>();
    for (const e of evs) {
      if (e.env !== env || e.index !== index || Math.floor(e.timeUs / 86_400_000_000) !== day) continue;
      const k = Math.floor(e.timeUs / MIN);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return m;
  }

  it('counts every recorded event in its minute, and absorbs encoded batches the same way', () => {
    const seg = new LiveSegment(1, '/nowhere');
    for (const e of events) seg.record(e);
    const absorbed = new LiveSegment(2, '/nowhere');
    absorbed.absorb(encodeBatch(events.slice(0, 200)).parts);
    absorbed.absorb(encodeBatch(events.slice(200)).parts);
    for (const p of seg.partitions.values()) {
      const want = minutesOf(events, p.env, p.index, p.day);
      assert.deepEqual(new Map([...p.minutes!].sort()), new Map([...want].sort()));
      const q = absorbed.partitions.get(`${p.env}\u0001${p.index}\u0001${p.day}`)!;
      assert.deepEqual(new Map([...q.minutes!].sort()), new Map([...want].sort()));
    }
  });

  it('carries minute counts through the segment summary; an old summary has none', () => {
    const seg = new LiveSegment(1, '/nowhere');
    for (const e of events) seg.record(e);
    const back = parseSummary(summaryJson(seg));
    for (const p of back)
      assert.deepEqual(p.minutes, seg.partitions.get(`${p.env}\u0001${p.index}\u0001${p.day}`)!.minutes);
    const old = JSON.stringify(
      JSON.parse(summaryJson(seg)).map((p: Record<string, unknown>) => ({ ...p, minutes: undefined })),
    );
    assert.ok(parseSummary(old).every((p) => p.minutes === undefined));
  });

  it('plans a live segment without counts as rows over the whole range', () => {
    const seg = new LiveSegment(1, '/nowhere');
    for (const e of events) seg.record(e);
    const restored = new LiveSegment(2, '/nowhere');
    const old = JSON.parse(summaryJson(seg)).map((p: Record<string, unknown>) => ({ ...p, minutes: undefined }));
    for (const p of parseSummary(JSON.stringify(old))) restored.addPartition(p);
    const spec = { envs: ['default', 'other'], indexes: null, fromUs: DAY0 + 5 * HOUR + 3 };
    const withCounts = planBuckets([], [seg], spec, HOUR);
    const without = planBuckets([], [restored], spec, HOUR);
    assert.ok(withCounts.fromMetadata > 0);
    assert.equal(without.fromMetadata, 0);
    assert.equal(without.rows.length, 1);
    assert.equal(without.rows[0].live[0].seg, restored);
    assert.deepEqual(without.rows[0].range, spec);
    assert.equal(without.candidateEvents, withCounts.candidateEvents);
  });
});
