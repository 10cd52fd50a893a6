import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the spath pipe', () => {
  roundTrip({
    canonical: [
      '* | spath',
      '* | spath a.b',
      '* | spath input=doc output=x a.b{1}.c',
      '* | spath "a b"',
      '* | spath output="a b" x.y',
      '* | spath list{} | stats count by list{}',
    ],
    canonicalized: [
      ['* | SPATH path=a.b{1}.c output=x INPUT=doc', '* | spath input=doc output=x a.b{1}.c'],
      ['* | spath path', '* | spath "path"'],
      ['* | spath output=x path="x.y"', '* | spath output=x x.y'],
    ],
    rejected: [
      ['* | spath output=x', 'spath output= needs a path', 18],
      ['* | spath a b', 'unexpected "b": spath takes one path', 12],
      ['* | spath input=', 'unexpected end of query: missing a value after "input="', 16],
      ['* | spath input=x input=y a', '"input" is given twice in spath', 18],
      ['* | spath a{x}', 'cannot read the path "a{x}": braces hold a position ({1}) or nothing ({})', 10],
    ],
  });
});
