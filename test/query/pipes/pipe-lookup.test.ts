import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the lookup pipe', () => {
  roundTrip({
    canonical: [
      '* | lookup users uid',
      '* | lookup users uid as user_id',
      '* | lookup users uid as user_id, host output name, team as user_team',
      '* | lookup users uid outputnew name',
      '* | lookup geo-ip.v2 ip as src output country',
      '* | lookup users "user name" as "who is", "as" output "output" as x',
      '* | lookup users uid | stats count by name',
    ],
    canonicalized: [
      ['x | LOOKUP users uid AS user_id OUTPUT name AS n', 'x | lookup users uid as user_id output name as n'],
      ['x | lookup users uid host OUTPUTNEW name team', 'x | lookup users uid, host outputnew name, team'],
      ['x | lookup users uid as user_id,host', 'x | lookup users uid as user_id, host'],
    ],
    rejected: [
      ['a | lookup', 'unexpected end of query: missing the name of a lookup table', 10],
      ['a | lookup "users" uid', 'unexpected "\\"users\\"": missing the name of a lookup table', 11],
      ['a | lookup users', 'missing a column of the table to match on', 16],
      ['a | lookup users uid as', 'missing a field name after "as"', 23],
      ['a | lookup users uid as a as b', 'unexpected "as": a column takes one "as"', 26],
      ['a | lookup users uid output', 'missing a column after "output"', 27],
      ['a | lookup users ui* output x', 'lookup takes field names without wildcards, not "ui*"', 17],
      ['a | lookup users uid outputnew x*', 'lookup takes field names without wildcards, not "x*"', 31],
    ],
  });
});
