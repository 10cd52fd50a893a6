import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { Bloom } from '../../src/storage/blocks/bloom.js';
import { tokenHash, tokenPieces } from '../../src/storage/blocks/tokens.js';
import { TokenSet } from '../../src/storage/blocks/token-scan.js';

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

  it('builds a part filter in one pass holding every piece the query side asks for (t2 hash)', () => {
    const texts = [
      'Failed password for invalid user admin from 10.0.0.1 port 22 ssh2',
      'GET /index.html?q=a_b-c HTTP/1.1 200',
      'ÜNÏCODE straße İstanbul \u212Aelvin ＡＢＣ 東京 ok',
      'trailing_underscore_ __double__ a1b2 ___',
      '\ud800 lone surrogate \udc00 then text',
      '',
      'x'.repeat(5000),
    ];
    for (let i = 0; i < 2000; i++) texts.push(`user${i} id=${i * 7919} blk_${i}-${i % 13} host-${i % 50}`);
    const set = new TokenSet(16);
    for (const t of texts) set.addText(t);
    const f = set.toBloom();
    assert.equal(f.hash, 't2');
    const pieces = new Set(texts.flatMap(tokenPieces));
    assert.equal(set.size, pieces.size, 'one entry per distinct token');
    for (const p of pieces) assert.ok(f.mightContain(p), p);
    let fp = 0;
    for (let i = 0; i < 10_000; i++) if (f.mightContain(`absent${i}`)) fp++;
    assert.ok(fp < 300, `false positives ${fp} of 10000`);
    const back = Bloom.fromBase64(f.toBase64(), f.m, 't2');
    assert.ok(back.mightContain('kelvin') && back.mightContain('i') && back.mightContain('stanbul'));
  });
});
