import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the chart pipe', () => {
  roundTrip({
    canonical: [
      '* | chart count over host',
      '* | chart count over host by status',
      '* | chart limit=5 usenull=false useother=false count, avg(ms) as mean over "user name" by status',
      '* | chart limit=0 max(ms) over _time by host | head 3',
    ],
    canonicalized: [
      ['x | CHART COUNT BY host, status limit=3', 'x | chart limit=3 count over host by status'],
      ['x | chart count by host status', 'x | chart count over host by status'],
      ['x | chart count by host', 'x | chart count over host'],
      [
        'x | chart limit=10 usenull=t count over host by code useother=f',
        'x | chart useother=false count over host by code',
      ],
    ],
    rejected: [
      ['a | chart count', 'unexpected end of query: missing "over" or "by" and the field to chart over', 15],
      ['a | chart over a', 'unexpected "over": missing an aggregation', 10],
      ['a | chart count over', 'missing a field after "over"', 20],
      ['a | chart count over a b', 'chart takes one field after "over", not 2', 21],
      ['a | chart count by a, b, c', 'chart takes at most two fields after "by", not 3', 19],
      ['a | chart count over a by b, c', 'chart takes one field after "by", not 2', 26],
      ['a | chart limit=x count over a', 'unexpected "x": missing a whole number after "limit="', 16],
      ['a | chart count over a by b limit=2 limit=3', '"limit" is given twice', 36],
    ],
  });
});
