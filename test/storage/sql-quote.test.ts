import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duck } from '../../src/storage/duck.js';
import { ident, lit, withoutNul } from '../../src/storage/sql-quote.js';
import { outputName, str } from '../../src/query/sql.js';

/**
 * The one SQL quoting (storage/sql-quote.ts), checked against the real DuckDB: whatever the text, a
 * quoted literal reads back as itself and a quoted identifier names a column of exactly that name.
 */

const TEXTS = [
  'plain',
  "it's",
  "''",
  '"double" quotes',
  'back\\slash\\',
  "\\'",
  'ünïcödé ✓ 日本語 🙂',
  'line\nbreak\ttab',
  '',
  '; DROP TABLE x; --',
];

describe('SQL quoting', () => {
  let dir: string;
  let duck: Duck;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sql-quote-'));
    duck = await Duck.open({ dataDir: dir, memoryLimit: '256MB', threads: 1 });
  });
  after(() => {
    duck.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads every literal back as the text it quoted', async () => {
    for (const t of TEXTS) {
      const r = await duck.query(`SELECT ${lit(t)} AS v`);
      assert.deepEqual(r.rows, [[t]], JSON.stringify(t));
    }
  });

  it('names a column exactly by every identifier it quoted', async () => {
    for (const t of TEXTS.filter((x) => x !== '')) {
      const r = await duck.query(`SELECT 1 AS ${ident(t)}`);
      assert.deepEqual(r.columns, [t], JSON.stringify(t));
    }
  });

  it('keeps NUL in storage quoting, which DuckDB then refuses', async () => {
    assert.equal(lit('a\u0000b'), "'a\u0000b'");
    assert.equal(ident('a\u0000b'), '"a\u0000b"');
    await assert.rejects(duck.query(`SELECT ${lit('a\u0000b')} AS v`));
  });

  it('drops NUL from text a user typed, so the query still runs', async () => {
    assert.equal(withoutNul('\u0000a\u0000b\u0000'), 'ab');
    const r = await duck.query(`SELECT ${str("a\u0000'b")} AS ${outputName('c\u0000"d')}`);
    assert.deepEqual(r.columns, ['c"d']);
    assert.deepEqual(r.rows, [["a'b"]]);
  });
});
