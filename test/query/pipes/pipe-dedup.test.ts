import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the dedup pipe', () => {
  roundTrip({
    canonical: ['* | dedup 2 host, status', '* | dedup host, status', '* | dedup 2 "user name", host'],
    canonicalized: [['x | dedup "*"', 'x | dedup *']],
    rejected: [['a | dedup', 'missing a field name', 9]],
  });
});
