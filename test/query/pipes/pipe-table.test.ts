import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the table pipe', () => {
  roundTrip({
    canonical: [
      '* | table _time host message',
      '* | table id.*',
      '* | table _time "user name" host',
      '* | table "say \\"hi\\"" "C:\\temp"',
    ],
    canonicalized: [
      ['x | table a, b', 'x | table a b'],
      ['* | table _time, "user name"', '* | table _time "user name"'],
      ['x | table "a","b",c', 'x | table a b c'],
    ],
    rejected: [
      ['a | table', 'missing a field name', 9],
      ['a | table ""', 'missing text inside the field name ""', 10],
      ['a | table "a"b', 'unexpected "b": missing a space or comma before it', 13],
      ['a | table a(b)', 'unexpected "(": missing a field name', 11],
    ],
  });
});
