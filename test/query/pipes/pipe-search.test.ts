import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip } from './round-trip.js';
import { parse } from '../../../src/query/parser.js';
import { printSearch } from '../../../src/query/search/filter-logic.js';

describe('the search pipe (search after the first "|")', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | search count>10',
      'x | search user!=unknown',
      'x | search DNS.record_type=*',
      'x | search status>=500 host=web*',
      'x | search (error OR status=404) NOT method=HEAD',
      'x | search "failed login" user="admin x"',
      'x | search NOT a=1',
    ],
    canonicalized: [
      ['x | search a=1 AND b=2', 'x | search a=1 b=2'],
      ['x | search a:1', 'x | search a=1'],
      ['x | search -a=1', 'x | search NOT a=1'],
      ['x|search a=1|search b=2', 'x | search a=1 | search b=2'],
    ],
    rejected: [
      ['a | search', 'unexpected end of query: missing a search expression after "search"', 10],
      ['a | search | head 1', 'unexpected "|": missing a search expression after "search"', 11],
      ['a | search (b=1', 'unexpected end of query: missing ")"', 15],
      ['a | search b= | head 1', 'unexpected "|": missing a value after "b="', 14],
      [
        'a | search earliest=-1h',
        'earliest=-1h: earliest and latest set the time range only in the search before the first "|"; use where _time…',
        4,
      ],
    ],
  });

  it("reads its expression with the search part's own grammar (the same entry point)", () => {
    for (const expr of ['a OR b c', 'x=1 OR y=2 z=3', 'NOT (a b) OR c', '"p q" f!=v*']) {
      const pipe = parse(`* | search ${expr}`).pipes[0];
      assert.equal(pipe.kind, 'search');
      assert.deepEqual(pipe.kind === 'search' && pipe.search, parse(expr).search, expr);
      assert.equal(printSearch(parse(expr).search), pipe.kind === 'search' ? printSearch(pipe.search) : '');
    }
  });
});
