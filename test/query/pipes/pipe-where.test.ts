import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the where pipe', () => {
  roundTrip({
    canonical: [
      '* | where status >= 500 AND host = "a"',
      '* | where status >= 500 OR NOT isnull(x)',
      '* | where (a + b) * 2 > 3',
      '* | where a - (b - c) = 1',
      '* | where NOT (a = 1 OR b = 2)',
      '* | where match(message, "^GET ") AND len(host) > 3',
    ],
    canonicalized: [
      ['x | where a==1', 'x | where a = 1'],
      ['x | where ((a))', 'x | where a'],
    ],
    rejected: [
      ['a | where', 'unexpected end of query: missing a value, field or function', 9],
      ['a | where x >', 'unexpected end of query: missing a value, field or function', 13],
      ['a | where (x', 'unexpected end of query: missing ")"', 12],
      ['a | where nosuch(x)', 'unknown function "nosuch"', 10],
      ['a | where if(x)', 'function "if" takes 3 arguments, not 1', 10],
      ['a | where x y', 'unexpected "y": after "where"', 12],
    ],
  });
});
