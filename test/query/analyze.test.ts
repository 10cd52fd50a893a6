import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../src/query/compile.js';
import { parse } from '../../src/query/parser.js';
import { requiredTokensOf } from '../../src/query/search/tokens.js';
import { parseTime, parseSpan, autoSpanSecs } from '../../src/query/time-range.js';
import { tokenPieces } from '../../src/storage/blocks/tokens.js';

const NOW = Date.UTC(2024, 4, 15, 13, 47, 12, 500); // a Wednesday

describe('query analysis', () => {
  const cases: [string, string[]][] = [
    ['error', ['error']],
    ['Error Disk', ['error', 'disk']],
    ['"connection refused"', ['connection', 'refused']],
    ['10.0.0.1', ['10', '0', '1']],
    ['err*', []],
    ['*fail', []],
    ['foo.bar*', ['foo']],
    ['a*b.c', ['c']],
    ['error OR warn', []],
    ['error NOT warn', ['error']],
    ['error (a OR b)', ['error']],
    ['host=web error', ['error']],
    ['*', []],
  ];
  for (const [q, tokens] of cases) {
    it(`requires the tokens ${JSON.stringify(tokens)} for ${JSON.stringify(q)}`, () => {
      assert.deepEqual(analyze(parse(q), NOW).requiredTokens, tokens);
    });
  }

  it('splits required tokens the way the store token filter does', () => {
    for (const t of ['blk_-1608999687919862906', 'user@example.com', 'GET /a/b?c=d', "o'brien"]) {
      assert.deepEqual(requiredTokensOf(t), tokenPieces(t));
    }
  });

  it('asks the store for the user fields a table pipeline reads, and for all fields when events come back', () => {
    assert.deepEqual(analyze(parse('status>=500 | stats count by host, code'), NOW).fields, ['code', 'status']);
    assert.deepEqual(analyze(parse('x | eval y=a + b | where y > c | stats avg(y) by d'), NOW).fields, [
      'a',
      'b',
      'c',
      'd',
    ]);
    assert.deepEqual(analyze(parse('x | rex "(?<u>\\w+)" | stats count by u'), NOW).fields, []);
    assert.equal(analyze(parse('x | where a > 1'), NOW).fields, '*');
    assert.equal(analyze(parse('x | table id.*'), NOW).fields, '*');
  });

  it('takes earliest and latest at the top level as the time range', () => {
    const a = analyze(parse('earliest=-1h latest=-5m error'), NOW);
    assert.equal(a.fromMs, NOW - 3_600_000);
    assert.equal(a.toMs, NOW - 300_000);
    assert.equal(analyze(parse('(earliest=-1h OR x)'), NOW).fromMs, undefined);
  });
});

describe('time values', () => {
  const cases: [string, number][] = [
    ['now', NOW],
    ['-15m', NOW - 15 * 60_000],
    ['+2h', NOW + 2 * 3_600_000],
    ['-1d@d', Date.UTC(2024, 4, 14)],
    ['@h', Date.UTC(2024, 4, 15, 13)],
    ['@w', Date.UTC(2024, 4, 13)],
    ['-1mon@mon', Date.UTC(2024, 3, 1)],
    ['@y', Date.UTC(2024, 0, 1)],
    ['2024-05-01', Date.UTC(2024, 4, 1)],
    ['2024-05-01T10:00:00Z', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01T10:00:00+02:00', Date.UTC(2024, 4, 1, 8)],
    ['2024-05-01 10:00:00.250', Date.UTC(2024, 4, 1, 10, 0, 0, 250)],
    ['1714600000', 1714600000_000],
    ['1714600000123', 1714600000123],
  ];
  for (const [v, ms] of cases) {
    it(`reads ${v}`, () => assert.equal(parseTime(v, NOW), ms));
  }
  it('rejects what it cannot read with invalid_time', () => {
    for (const v of ['yesterday', '-15q', '2024-13-45', ''])
      assert.throws(() => parseTime(v, NOW), { code: 'invalid_time' });
  });
  it('reads spans and picks nice automatic ones', () => {
    assert.equal(parseSpan('1m'), 60);
    assert.equal(parseSpan('30s'), 30);
    assert.equal(parseSpan('2h'), 7200);
    assert.equal(parseSpan('fast'), undefined);
    assert.equal(autoSpanSecs(0, 86_400_000, 100), 1800);
    assert.equal(autoSpanSecs(0, 60_000, 60), 1);
  });
});
