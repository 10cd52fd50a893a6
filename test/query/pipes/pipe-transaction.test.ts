import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the transaction pipe', () => {
  roundTrip({
    canonical: [
      '* | transaction host',
      '* | transaction',
      '* | transaction maxpause=1m | stats avg(duration)',
      '* | transaction host, "user name" maxspan=5m maxpause=30s startswith=login endswith="logged out"',
      '* | transaction session startswith=err* endswith=NOT',
      '* | transaction src_user maxspan=180m connected=false',
    ],
    canonicalized: [
      [
        'x | TRANSACTION host,user endswith=bye MAXPAUSE=1h startswith="hi"',
        'x | transaction host, user maxpause=1h startswith="hi" endswith=bye',
      ],
      ['x | transaction host user', 'x | transaction host, user'],
      ['x | transaction src_user connected=f maxspan=180m', 'x | transaction src_user maxspan=180m connected=false'],
    ],
    rejected: [
      [
        'a | transaction host maxspan=5',
        'unexpected "5": missing a duration such as 30s, 5m, 1h or 1d after "maxspan="',
        29,
      ],
      ['a | transaction host maxspan=5m maxspan=1m', '"maxspan" is given twice', 32],
      ['a | transaction host startswith=""', 'missing text inside the phrase ""', 32],
      [
        'a | transaction host startswith=(a)',
        'unexpected "(": missing a search term or "phrase" after "startswith="',
        32,
      ],
      [
        'a | transaction host endswith=',
        'unexpected end of query: missing a search term or "phrase" after "endswith="',
        30,
      ],
      ['a | transaction host maxspan=5m user', 'unexpected "user": after "transaction"', 32],
      [
        'a | transaction host, user connected=false',
        'transaction connected= is taken with one field only: it places events lacking some of the fields, which svc leaves out',
        37,
      ],
      ['a | transaction host connected=maybe', 'unexpected "maybe": missing true or false after "connected="', 31],
    ],
  });
});
