import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GRANULE_ROWS } from '../../src/storage/blocks/token-filters.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duck } from '../../src/storage/duck.js';
import { writeBlocks } from '../../src/storage/blocks/seal-blocks.js';
import { DAY_US, type PartRow } from '../../src/storage/partition.js';

const DAY = 20_000;

/** Rows of the seal's table shape for one env/index/day: `n` events one second apart. */
function rowsSql(n: number): string {
  return `(SELECT make_timestamp(${DAY} * ${DAY_US} + i * 1000000) AS _time, 'default' AS env, 'main' AS "index", 'h' AS host, '' AS source, '' AS sourcetype,
             'event ' || i AS message, NULL::JSON AS _f, ${DAY}::BIGINT AS _day FROM range(${n}) t(i))`;
}

describe('block writer', () => {
  it('describes the rows it wrote even when the partition accounting it was given is wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bw-'));
    const duck = await Duck.open({ dataDir: dir, memoryLimit: '256MB', threads: 1 });
    try {
      const wrong: PartRow = { env: 'default', index: 'main', day: DAY, count: 7, minUs: 0, maxUs: 1 };
      const target = { root: join(dir, 'blocks'), node: 'n1', nextSeq: () => Date.now() };
      const [b] = await duck.with((c) =>
        writeBlocks(c, rowsSql(50), target, { walSeg: 1, replaces: [] }, new Map(), [wrong]),
      );
      assert.equal(b.meta.count, 50);
      assert.equal(b.meta.minUs, DAY * DAY_US);
      assert.equal(b.meta.maxUs, DAY * DAY_US + 49_000_000);
      const r = await duck.query(`SELECT count(*) FROM read_parquet('${b.path}')`);
      assert.equal(r.rows[0][0], 50);
    } finally {
      duck.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cuts row groups where time order would, and sorts each by source, host, time inside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bw-'));
    const duck = await Duck.open({ dataDir: dir, memoryLimit: '512MB', threads: 2 });
    try {
      // three and a half granules of events 0.3 s apart (one day), hosts and sources interleaved: four row groups
      const n = 3 * GRANULE_ROWS + GRANULE_ROWS / 2;
      const rows = `(SELECT make_timestamp(${DAY} * ${DAY_US} + i * 300000) AS _time, 'default' AS env, 'main' AS "index", 'h' || (i % 7) AS host,
          's' || (i % 3) AS source, '' AS sourcetype, 'event ' || i AS message, NULL::JSON AS _f, ${DAY}::BIGINT AS _day FROM range(${n}) t(i))`;
      const part: PartRow = {
        env: 'default',
        index: 'main',
        day: DAY,
        count: n,
        minUs: DAY * DAY_US,
        maxUs: DAY * DAY_US + (n - 1) * 300_000,
      };
      const target = { root: join(dir, 'blocks'), node: 'n1', nextSeq: () => Date.now() };
      const [b] = await duck.with((c) => writeBlocks(c, rows, target, { walSeg: 1, replaces: [] }, new Map(), [part]));
      // each row group holds the events a plain time order would put there: tight _time statistics
      const groups = await duck.query(
        `SELECT row_group_num_rows, epoch_us(stats_min_value::TIMESTAMP), epoch_us(stats_max_value::TIMESTAMP)
           FROM parquet_metadata('${b.path}') WHERE path_in_schema = '_time' ORDER BY row_group_id`,
      );
      const rg = GRANULE_ROWS;
      assert.deepEqual(
        groups.rows.map((r) => r.map(Number)),
        [0, 1, 2, 3].map((k) => [
          Math.min(rg, n - k * rg),
          DAY * DAY_US + k * rg * 300_000,
          DAY * DAY_US + (Math.min(n, (k + 1) * rg) - 1) * 300_000,
        ]),
      );
      // inside a row group, rows go by source, host, time
      const unordered = await duck.query(
        `SELECT count(*) FROM (
           SELECT file_row_number // ${rg} AS g, (source, host, _time) AS k, lag((source, host, _time)) OVER (PARTITION BY g ORDER BY file_row_number) AS prev
             FROM read_parquet('${b.path}', file_row_number = true)
         ) WHERE prev > k`,
      );
      assert.equal(Number(unordered.rows[0][0]), 0);
    } finally {
      duck.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
