import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { Bloom } from '../../src/storage/blocks/bloom.js';
import { tokenHash, tokenPieces } from '../../src/storage/blocks/tokens.js';

describe('token filter', () => {
  it('hashes a token in JS exactly as DuckDB does (md5_number_upper)', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    const tokens = ['hello', 'blk_38865049064139660', 'ünïcode', '0'];
    const r = await c.runAndReadAll(
      `SELECT md5_number_upper(t) FROM unnest([${tokens.map((t) => `'${t}'`).join(', ')}]) AS u(t)`,
    );
    assert.deepEqual(
      r.getRowsJS().map((row) => row[0]),
      tokens.map(tokenHash),
    );
    c.closeSync();
    inst.closeSync();
  });

  it('never forgets a token and rarely claims one it never saw', () => {
    const bloom = Bloom.forCount(10_000);
    for (let i = 0; i < 10_000; i++) bloom.addHash(tokenHash(`tok${i}`));
    for (let i = 0; i < 10_000; i++) assert.ok(bloom.mightContain(`tok${i}`));
    let fp = 0;
    for (let i = 0; i < 10_000; i++) if (bloom.mightContain(`other${i}`)) fp++;
    assert.ok(fp < 300, `false positives ${fp} of 10000`);
    const back = Bloom.fromBase64(bloom.toBase64(), bloom.m);
    assert.ok(back.mightContain('tok42'));
  });

  it('splits a query token into the pieces the filter indexes', () => {
    assert.deepEqual(tokenPieces('10.0.0.1'), ['10', '0', '0', '1']);
    assert.deepEqual(tokenPieces('Failed'), ['failed']);
    assert.deepEqual(tokenPieces('user_id'), ['user_id']);
    assert.deepEqual(tokenPieces('blk_-123'), ['blk_', '123']);
  });
});
