import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
      const [b] = await duck.with((c) => writeBlocks(c, rowsSql(50), target, { walSeg: 1, replaces: [] }, new Map(), [wrong]));
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
});
