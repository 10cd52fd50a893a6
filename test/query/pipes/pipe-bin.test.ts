import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the bin (bucket) pipe', () => {
  roundTrip({
    canonical: ['* | bin span=100 bytes as range', '* | bin _time'],
    canonicalized: [
      ['x | bucket span=5m _time', 'x | bin span=5m _time'],
      ['x | bin _time span=1h', 'x | bin span=1h _time'],
      ['x | bucket _time as t span=10m', 'x | bin span=10m _time as t'],
    ],
    rejected: [
      ['a | bin span=fast _time', 'unexpected "fast": missing a span such as 1h, 5m or 100', 13],
      ['a | bin', 'missing a field to bin', 7],
      ['a | bin x y', 'unexpected "y": bin takes one field', 11],
      ['a | bin span=1h _time span=5m', '"span" is given twice', 22],
      ['a | bin _time bins=10', 'bin bins= is not supported: give span=', 14],
      ['a | bucket minspan=5m _time', 'bucket minspan= is not supported: give span=', 11],
    ],
  });
});
