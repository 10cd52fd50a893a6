import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the patterns pipe', () => {
  roundTrip({
    canonical: [
      '* | patterns',
      'sshd | patterns limit=20',
      '* | patterns by host, index limit=5 field=msg',
      '* | patterns by "user name", host',
      "* | patterns field='user name'",
      '* | patterns field=id.orig_h',
      'error | where len(message) > 10 | patterns by sourcetype',
    ],
    canonicalized: [
      ['x | PATTERNS LIMIT=5 BY host', 'x | patterns by host limit=5'],
      ['x | patterns field=msg limit=3 by host,index', 'x | patterns by host, index limit=3 field=msg'],
    ],
    rejected: [
      ['x | patterns | head 5', 'unexpected "|": patterns must be the last pipe', 13],
      ['x | patterns by host | stats count', 'unexpected "|": patterns must be the last pipe', 21],
      ['x | patterns limit=0', 'unexpected "0": missing a number of templates (a positive integer)', 19],
      ['x | patterns limit=a', 'unexpected "a": missing a number of templates (a positive integer)', 19],
      ['x | patterns limit', 'unexpected end of query: missing "="', 18],
      ['x | patterns limit=5 limit=6', 'unexpected "limit": "limit" is given twice', 21],
      ['x | patterns by host by index', 'unexpected "by": "by" is given twice', 21],
      ['x | patterns by', 'missing a field after "by"', 15],
      ['x | patterns by limit=5', 'missing a field after "by"', 16],
      ['x | patterns field=', 'unexpected end of query: missing a field after "field="', 19],
      ['x | patterns field=3', 'unexpected "3": missing a field after "field="', 19],
      ['x | patterns foo', 'unexpected "foo": want by, limit= or field=', 13],
    ],
  });
});
