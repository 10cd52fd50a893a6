import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the regex pipe', () => {
  roundTrip({
    canonical: [
      '* | regex "^\\d+ "',
      '* | regex process="(?i)(gpupdate\\.exe.{0,4}$)"',
      '* | regex path!="^/api/"',
      '* | regex \'user name\'="x"',
    ],
    canonicalized: [['x | regex message!="a"', 'x | regex message!="a"']],
    rejected: [
      ['a | regex', 'unexpected end of query: missing a quoted regex', 9],
      ['a | regex f', 'unexpected end of query: missing "=" or "!=" and a quoted regex after "f"', 11],
      ['a | regex f=x', 'unexpected "x": missing a quoted regex', 12],
      ['a | regex f=""', 'missing a regex inside the quotes', 12],
      ['a | regex f="(?<!/)x"', 'cannot use lookaround or backreferences (RE2 syntax) in regex "(?<!/)x"', 12],
      ['a | regex "(x"', 'cannot parse regex "(x": /(x/: Unterminated group', 10],
    ],
  });
});
