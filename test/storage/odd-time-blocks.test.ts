import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Duck } from '../../src/storage/duck.js';
import { writeBlocks } from '../../src/storage/blocks/seal-blocks.js';
import { sidecarPath } from '../../src/storage/blocks/block-files.js';
import { DAY_US } from '../../src/storage/partition.js';
import { MAX_EVENT_US } from '../../src/events/timestamp.js';
import { countWhere, openStorage } from './helpers.js';

/** 10000-01-01T00:00:00Z in µs: a time an older svc sealed (syslog's year rollover, a float time). */
const YEAR_10000_US = 253402300800000000;

describe('blocks an older svc sealed with times past year 9999', () => {
  it('loads a year-10000 block under its old day name after a restart, searchable, and the catalog extents stay printable', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-odd-block-'));
    const root = join(dataDir, 'blocks');
    // the block as the seal wrote it then: rows at year 10000, in a directory named by
    // toISOString().slice(0, 10), i.e. "+010000-01", and that day in its sidecar
    const duck = await Duck.open({ dataDir, memoryLimit: '256MB', threads: 1 });
    const day = Math.floor(YEAR_10000_US / DAY_US);
    const rows = `(SELECT make_timestamp(${YEAR_10000_US} + i * 1000000) AS _time, 'default' AS env, 'main' AS "index", 'h' AS host, 's' AS source, 't' AS sourcetype,
        'far future ' || i AS message, NULL::JSON AS _f, ${day}::BIGINT AS _day FROM range(5) t(i))`;
    const [b] = await duck.with((c) =>
      writeBlocks(c, rows, { root, node: 'old', nextSeq: () => 1 }, { walSeg: null, replaces: [] }),
    );
    duck.close();
    const oldDir = join(dirname(dirname(b.path)), '+010000-01');
    renameSync(dirname(b.path), oldDir);
    const side = join(oldDir, sidecarPath(b.path).split('/').pop()!);
    // and its time range as DuckDB's text for a BIGINT past 2^53
    writeFileSync(
      side,
      JSON.stringify({
        ...JSON.parse(readFileSync(side, 'utf8')),
        day: '+010000-01',
        minUs: String(YEAR_10000_US),
        maxUs: String(YEAR_10000_US + 4_000_000),
      }),
    );

    const s = await openStorage({ dataDir });
    try {
      assert.equal(s.engine.stats().blocks, 1); // not set aside
      assert.equal(await countWhere(s.engine, "message LIKE 'far future%'"), 5);
      const [p] = s.engine.partitions();
      assert.equal(p.events, 5);
      assert.ok(p.maxTimeUs <= MAX_EVENT_US);
      assert.doesNotThrow(() => new Date(p.maxTimeUs / 1000).toISOString());
    } finally {
      await s.close();
    }
  });
});
