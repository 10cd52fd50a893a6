import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the streamstats pipe', () => {
  roundTrip({
    canonical: [
      '* | streamstats count',
      '* | streamstats count, avg(ms) as mean by host',
      '* | streamstats window=5 current=false global=false dc(user) as users, p95(ms) by host, "user name"',
      '* | sort _time | streamstats window=3 sum(bytes) as total | where total > 1000',
    ],
    canonicalized: [
      ['x | STREAMSTATS COUNT BY host', 'x | streamstats count by host'],
      ['x | streamstats count window=5 current=f by host', 'x | streamstats window=5 current=false count by host'],
      ['x | streamstats count by host window=2 global=f', 'x | streamstats window=2 global=false count by host'],
      ['x | streamstats window=0 current=t global=true count', 'x | streamstats count'],
    ],
    rejected: [
      ['a | streamstats', 'unexpected end of query: missing an aggregation', 15],
      ['a | streamstats count by', 'missing a field after "by"', 24],
      ['a | streamstats window=x count', 'unexpected "x": missing a whole number after "window="', 23],
      ['a | streamstats window=-1 count', 'unexpected "-": missing a whole number after "window="', 23],
      ['a | streamstats window=100000 count', '"100000" is too large for "window" (at most 10000)', 23],
      ['a | streamstats window=5 window=3 count', '"window" is given twice', 25],
      ['a | streamstats current=maybe count', 'unexpected "maybe": missing true or false after "current="', 24],
      ['a | streamstats window count', 'unexpected "count": missing "="', 23],
    ],
  });
});
