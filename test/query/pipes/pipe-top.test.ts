import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the top and rare pipe', () => {
  roundTrip({
    canonical: [
      '* | top host',
      '* | top 5 host, status',
      '* | top 3 uri by host',
      '* | rare status by host, env',
      '* | rare 3 status',
      '* | top 3 "user name" by "src ip"',
      '* | rare "by"',
    ],
    canonicalized: [
      ['x | top limit=3 host', 'x | top 3 host'],
      ['x | top "by" BY "a b"', 'x | top "by" by "a b"'],
    ],
    rejected: [
      ['a | top', 'missing a field name', 7],
      ['a | top uri by', 'missing a field after "by"', 14],
    ],
  });
});
