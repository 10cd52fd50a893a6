import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the tail pipe', () => {
  roundTrip({
    canonical: ['* | tail 3'],
    canonicalized: [['x | tail', 'x | tail 10']],
  });
});
