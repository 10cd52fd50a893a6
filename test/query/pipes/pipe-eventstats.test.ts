import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the eventstats pipe', () => {
  roundTrip({
    canonical: [
      '* | eventstats count',
      '* | eventstats count, avg(ms) as mean by host',
      '* | eventstats p95(ms) by host, "user name"',
      '* | eventstats dc(user) as users | where users > 1',
    ],
    canonicalized: [['x | EVENTSTATS COUNT BY host', 'x | eventstats count by host']],
    rejected: [
      ['a | eventstats', 'unexpected end of query: missing an aggregation', 14],
      ['a | eventstats avg', 'unexpected end of query: missing "(field)" after "avg"', 18],
      ['a | eventstats count by', 'missing a field after "by"', 23],
    ],
  });
});
