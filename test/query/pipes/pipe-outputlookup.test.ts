import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the outputlookup pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | outputlookup hosts_seen',
      '* | stats count by host | outputlookup append=true hosts.csv',
      '* | table host | outputlookup create_empty=false override_if_empty=false createinapp=true t',
      '* | stats count by host | outputlookup key_field=host hosts_seen',
      "* | stats count by host | eval 'the key'=host | outputlookup key_field='the key' hosts_seen",
    ],
    canonicalized: [
      ['x | outputlookup t append=t', 'x | outputlookup append=true t'],
      ['x | outputlookup createinapp=true t', 'x | outputlookup createinapp=true t'],
      [
        'x | outputlookup create_empty=f override_if_empty=f t',
        'x | outputlookup create_empty=false override_if_empty=false t',
      ],
      [
        'x | outputlookup bh_host_cache key_field=key override_if_empty=f',
        'x | outputlookup override_if_empty=false key_field=key bh_host_cache',
      ],
    ],
    rejected: [
      ['a | outputlookup', 'unexpected end of query: missing the name of a lookup table', 16],
      ['a | outputlookup append=yes t', 'unexpected "yes": missing true or false after "append="', 24],
      ['a | outputlookup max=5 t', 'outputlookup max= is not supported', 17],
      ['a | outputlookup key_field=k key_field=j t', '"key_field" is given twice', 29],
      ['a | outputlookup t key_field=', 'unexpected end of query: missing a field after "key_field="', 29],
      ['a | outputlookup key_field t', 'unexpected "t": missing "="', 27],
      ['a | outputlookup output_format=splunk_mv_csv t', 'outputlookup output_format= is not supported', 17],
      ['a | outputlookup append=t append=f t', '"append" is given twice', 26],
      ['a | outputlookup t u', 'unexpected "u": after "outputlookup"', 19],
    ],
  });
});
