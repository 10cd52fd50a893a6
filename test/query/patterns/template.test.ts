import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { patternRows, patternsTable, shapeWords } from '../../../src/query/patterns/template.js';
import { shapeOf } from '../../../src/query/patterns/shape-sql.js';

const T = (m: number) => `2024-05-01T10:${String(m).padStart(2, '0')}:00.000000Z`;
/** A stage row: by values, count, least and greatest text, first and last time, other. */
const row = (
  by: unknown[],
  n: number,
  lo: string,
  hi: string,
  first: number,
  last: number,
  other = false,
): unknown[] => [...by, n, lo, hi, T(first), T(last), other];

describe('the answer of patterns from its shapes', () => {
  it('masks the digits a shape hides as SQL does, and marks words its two samples disagree on', () => {
    assert.equal(
      shapeOf('user7 took 12ms from 10.0.0.1:22 at 06:55:46 id=3fa9c-e89b'),
      'user0 took 0ms from 0 at 0 id=0',
    );
    assert.deepEqual(shapeWords('user7 took 12ms', 'user12 took 9ms').words, ['<*>', 'took', '<*>']);
    assert.deepEqual(shapeWords('ssh2 ok', 'ssh2 ok').words, ['ssh2', 'ok']);
  });

  it("merges shapes into templates with summed counts, the widest time span and the top shape's sample", () => {
    const rows = patternRows({ byCount: 0 }, [
      row(
        [],
        5,
        'Failed password for root from 10.0.0.1 port 22 ssh2',
        'Failed password for root from 10.0.0.9 port 41 ssh2',
        3,
        9,
      ),
      row(
        [],
        3,
        'Failed password for admin from 10.0.0.2 port 22 ssh2',
        'Failed password for admin from 10.0.0.2 port 22 ssh2',
        1,
        4,
      ),
      row(
        [],
        2,
        'Failed password for guest from 10.0.0.3 port 22 ssh2',
        'Failed password for guest from 10.0.0.3 port 22 ssh2',
        5,
        12,
      ),
      row(
        [],
        1,
        'Failed password for test from 10.0.0.4 port 22 ssh2',
        'Failed password for test from 10.0.0.4 port 22 ssh2',
        6,
        6,
      ),
      row([], 7, 'Connection closed by 10.0.0.1 [preauth]', 'Connection closed by 10.0.0.8 [preauth]', 2, 3),
    ]);
    assert.deepEqual(rows, [
      [
        'Failed password for <*> from <*> port <*> ssh2',
        11,
        T(1),
        T(12),
        'Failed password for root from 10.0.0.1 port 22 ssh2',
      ],
      ['Connection closed by <*> [preauth]', 7, T(2), T(3), 'Connection closed by 10.0.0.1 [preauth]'],
    ]);
  });

  it('sorts by the by values, then count, keeps `limit` per group and shows the rarest shapes as <*>', () => {
    const rows = patternRows({ byCount: 1, limit: 2 }, [
      row(['web'], 4, 'GET /a 200', 'GET /b 200', 1, 2),
      row(['db'], 9, 'slow query 12ms', 'slow query 80ms', 1, 2),
      row(['web'], 6, 'login alice ok', 'login bob ok', 1, 2),
      row(['web'], 3, 'cache miss', 'cache miss', 1, 2),
      row(['db'], 2, 'odd line', 'strange line', 3, 4, true),
    ]);
    assert.deepEqual(
      rows.map((r) => r.slice(0, 3)),
      [
        ['db', 'slow query <*>', 9],
        ['db', '<*>', 2],
        ['web', 'login <*> ok', 6],
        ['web', 'GET /<*> <*>', 4],
      ],
    );
  });

  it('names its columns after the by fields and caps the rows', () => {
    const t = patternsTable(
      { by: ['host'] },
      [row(['a'], 1, 'x 1', 'x 1', 1, 1), row(['b'], 1, 'y 1', 'y 1', 1, 1)],
      1,
    );
    assert.deepEqual(t.columns, ['host', 'pattern', 'count', 'first_time', 'last_time', 'sample']);
    assert.deepEqual(t.rows, [['a', 'x <*>', 1, T(1), T(1), 'x 1']]);
  });
});
