import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the head pipe', () => {
  roundTrip({
    canonical: ['* | head 5'],
    canonicalized: [['x | head', 'x | head 10']],
    rejected: [
      ['a | head 0', 'unexpected "0": missing a row count (a positive integer)', 9],
      ['a | head x', 'unexpected "x": missing a row count (a positive integer)', 9],
    ],
  });
});
