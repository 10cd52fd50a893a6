import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the fieldsummary pipe', () => {
  roundTrip({
    canonical: ['* | fieldsummary', '* | fieldsummary maxvals=5', 'error | fieldsummary | where count > 10'],
    canonicalized: [['x | FIELDSUMMARY MAXVALS = 2', 'x | fieldsummary maxvals=2']],
    rejected: [
      ['a | fieldsummary maxvals', 'unexpected end of query: missing "="', 24],
      ['a | fieldsummary maxvals=0', 'unexpected "0": missing a number of values (a positive integer)', 25],
      ['a | fieldsummary host', 'unexpected "host": after "fieldsummary"', 17],
    ],
  });
});
