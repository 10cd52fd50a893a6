import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the stats pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by index',
      '* | stats count',
      'error | stats count, count(host), sum(bytes), avg(bytes) as mean, min(ms), max(ms), dc(host), values(status), p50(ms), p95(ms), p99(ms) by host, status',
      '* | stats median(ms) as m',
      '* | stats count by "user name"',
    ],
    canonicalized: [
      ['| stats count', '* | stats count'],
      ['x|stats count BY host,status', 'x | stats count by host, status'],
      ['x | stats count AS n', 'x | stats count as n'],
      ['x | stats count avg(ms)', 'x | stats count, avg(ms)'],
      ['x | STATS Count', 'x | stats count'],
      ['* | stats count by "id.orig_h"', '* | stats count by id.orig_h'],
    ],
    rejected: [
      ['a | stats', 'unexpected end of query: missing an aggregation', 9],
      [
        'a | stats bogus',
        'unexpected "bogus": missing an aggregation (count, sum, avg, min, max, dc, values, latest, p95, …)',
        10,
      ],
      ['a | stats sum', 'unexpected end of query: missing "(field)" after "sum"', 13],
      ['a | stats sum(', 'unexpected end of query: missing a field for "sum"', 14],
      ['a | stats count by', 'missing a field after "by"', 18],
      ['a | stats count as', 'unexpected end of query: missing a name after "as"', 18],
      ['a | stats count by "x" "', 'missing closing " for the string starting at position 23', 23],
    ],
  });
});
