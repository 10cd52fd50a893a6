import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the fillnull pipe', () => {
  roundTrip({
    canonical: [
      '* | fillnull',
      '* | fillnull user, session',
      '* | fillnull value="n/a" user',
      '* | fillnull value=-1 bytes',
      '* | fillnull value="two words"',
    ],
    canonicalized: [
      ['x | fillnull value=0 a', 'x | fillnull a'],
      ['x | fillnull value=none a', 'x | fillnull value="none" a'],
    ],
    rejected: [
      ['a | fillnull value=', 'unexpected end of query: missing a value after "value="', 19],
      ['a | fillnull value', 'unexpected end of query: missing "="', 18],
    ],
  });
});
