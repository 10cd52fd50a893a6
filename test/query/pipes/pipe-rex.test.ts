import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the rex pipe', () => {
  roundTrip({
    canonical: ['* | rex "user=(?<user>\\w+)"', '* | rex field=path "^/api/(?<version>v\\d+)/(?<resource>[a-z]+)"'],
    canonicalized: [['x | rex field=message "a(?P<n>b)"', 'x | rex field=message "a(?P<n>b)"']],
    rejected: [
      ['a | rex', 'unexpected end of query: missing a quoted regex after "rex"', 7],
      ['a | rex "no groups"', 'missing a named group (?<name>...) in rex regex "no groups"', 8],
      ['a | rex "(?<a>x"', 'cannot parse rex regex "(?<a>x": /(?<a>x/: Unterminated group', 8],
      ['a | rex "(?<a>x)(?=y)"', 'cannot use lookaround or backreferences in rex regex "(?<a>x)(?=y)"', 8],
    ],
  });
});
