import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the outputlookup pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | outputlookup hosts_seen',
      '* | stats count by host | outputlookup append=true hosts.csv',
      '* | table host | outputlookup create_empty=false override_if_empty=false createinapp=true t',
    ],
    canonicalized: [
      ['x | outputlookup t append=t', 'x | outputlookup append=true t'],
      ['x | outputlookup createinapp=true t', 'x | outputlookup createinapp=true t'],
      [
        'x | outputlookup create_empty=f override_if_empty=f t',
        'x | outputlookup create_empty=false override_if_empty=false t',
      ],
    ],
    rejected: [
      ['a | outputlookup', 'unexpected end of query: missing the name of a lookup table', 16],
      ['a | outputlookup append=yes t', 'unexpected "yes": missing true or false after "append="', 24],
      ['a | outputlookup max=5 t', 'outputlookup max= is not supported', 17],
      ['a | outputlookup key_field=k t', 'outputlookup key_field= is not supported', 17],
      ['a | outputlookup append=t append=f t', '"append" is given twice', 26],
      ['a | outputlookup t u', 'unexpected "u": after "outputlookup"', 19],
    ],
  });
});
