import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the bin (bucket) pipe', () => {
  roundTrip({
    canonical: ['* | bin span=100 bytes as range', '* | bin _time'],
    canonicalized: [['x | bucket span=5m _time', 'x | bin span=5m _time']],
    rejected: [
      ['a | bin span=fast _time', 'unexpected "fast": missing a span such as 1h, 5m or 100', 13],
      ['a | bin', 'missing a field to bin', 7],
      ['a | bin x y', 'unexpected "y": bin takes one field', 11],
    ],
  });
});
