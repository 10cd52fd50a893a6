import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the rename pipe', () => {
  roundTrip({
    canonical: ['* | rename host as server, "user name" as user', '* | rename id.* as conn_*'],
    canonicalized: [['x | rename a AS b c AS d', 'x | rename a as b, c as d']],
    rejected: [
      ['a | rename x', 'unexpected end of query: missing "as" and a new name', 12],
      ['a | rename x as', 'missing a new name after "as"', 15],
      ['a | rename x y as z', 'rename takes pairs "<field> as <new name>" separated by commas, not "x y z"', 19],
      ['a | rename x* as y', '"x* as y": both names need as many "*"', 18],
    ],
  });
});
