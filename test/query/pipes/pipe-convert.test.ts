import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the convert pipe', () => {
  roundTrip({
    canonical: [
      '* | convert ctime(lasttime) as LastTime, ctime(firsttime) as FirstTime',
      '* | convert auto(fs)',
      '* | convert timeformat="%Y-%m-%d" ctime(t), mktime(d) as secs',
      '* | convert dur2sec(delay), mstime(lap), memk(mem), num(n), rmcomma(c), rmunit(u)',
      '* | convert ctime(*time), none(mytime)',
      '* | convert num("a b") as "c d"',
    ],
    canonicalized: [
      ['x | convert CTIME(t) AS T', 'x | convert ctime(t) as T'],
      ['x | convert ctime(a) ctime(b)', 'x | convert ctime(a), ctime(b)'],
    ],
    rejected: [
      ['a | convert', 'unexpected end of query: missing a conversion such as ctime(field)', 11],
      [
        'a | convert tostring(x)',
        'unexpected "tostring": missing a convert function (auto, ctime, dur2sec, memk, mktime, mstime, none, num, rmcomma or rmunit)',
        12,
      ],
      ['a | convert ctime x', 'unexpected "x": missing "("', 18],
      ['a | convert ctime()', 'unexpected ")": missing a field inside "ctime(…)"', 18],
      ['a | convert ctime(*t) as u', 'convert … as takes one field and one name, without wildcards', 22],
      ['a | convert none(x) as y', 'none() takes no "as": it keeps fields out of the conversions', 20],
      ['a | convert ctime(x) as', 'unexpected end of query: missing a new name after "as"', 23],
    ],
  });
});
