import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the iplocation pipe', () => {
  roundTrip({
    canonical: [
      '* | iplocation clientip',
      '* | iplocation prefix=geo_ clientip | stats count by geo_Country',
      '* | iplocation prefix="geo " allfields=false lang=en src',
      '* | iplocation Authentication.src',
      '* | iplocation sourceIPs{}',
    ],
    canonicalized: [
      ['x | iplocation src prefix=g_', 'x | iplocation prefix=g_ src'],
      ['x | iplocation allfields=f lang=EN src', 'x | iplocation allfields=false lang=en src'],
      ['x | iplocation "src ip"', 'x | iplocation "src ip"'],
    ],
    rejected: [
      ['a | iplocation', 'missing the field holding an IP address', 14],
      [
        'a | iplocation allfields=true src',
        'iplocation allfields=true is not supported: the IP location database svc ships (DB-IP Lite) has no continent, metro code or time zone',
        25,
      ],
      [
        'a | iplocation lang=de src',
        'iplocation lang=de is not supported: the IP location database names places in English only (lang=en)',
        20,
      ],
      ['a | iplocation allfields=maybe src', 'unexpected "maybe": missing true or false after "allfields="', 25],
      ['a | iplocation prefix=a prefix=b src', '"prefix" is given twice', 24],
      ['a | iplocation src dest', 'iplocation takes one field without wildcards, not "src dest"', 15],
      ['a | iplocation src*', 'iplocation takes one field without wildcards, not "src*"', 15],
    ],
  });
});
