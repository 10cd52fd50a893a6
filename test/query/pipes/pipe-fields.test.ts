import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the fields pipe', () => {
  roundTrip({
    canonical: [
      '* | fields host, status',
      '* | fields - message, id.*',
      '* | fields + host',
      '* | fields "user name", host',
      '* | fields - "user name", id.*',
    ],
    canonicalized: [
      ['x | fields a b', 'x | fields a, b'],
      ['x | fields -a, b', 'x | fields - a, b'],
      ['x | fields "x"', 'x | fields x'],
      ['x | fields -"a b", c', 'x | fields - "a b", c'],
    ],
  });
});
