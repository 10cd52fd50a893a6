import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the sort pipe', () => {
  roundTrip({
    canonical: [
      '* | sort -count, host',
      '* | sort 5 _time',
      '* | sort -"user name", host',
      '* | sort num(bytes), -str(host)',
      '* | sort 5 -num("bytes in"), ip(src), str(_time)',
    ],
    canonicalized: [
      ['x | sort +a', 'x | sort a'],
      ['x | sort NUM(a)', 'x | sort num(a)'],
      ['x | sort +num(a),-str("b c")', 'x | sort num(a), -str("b c")'],
      ['x | sort -"a b",+"c"', 'x | sort -"a b", c'],
      // Splunk's detached sign applies to the next field
      ['x | sort - "x"', 'x | sort -x'],
    ],
    rejected: [
      ['a | sort foo(x)', 'unknown sort function "foo": want num, str or ip', 9],
      ['a | sort num(', 'unexpected end of query: missing a field inside "num(...)"', 13],
      ['a | sort num()', 'unexpected ")": missing a field inside "num(...)"', 13],
      ['a | sort num(x', 'unexpected end of query: missing ")"', 14],
      ['a | sort num(x y)', 'unexpected "y": missing ")"', 15],
      ['a | sort num(x)y', 'unexpected "y": missing a space or comma before it', 15],
      ['a | sort num("")', 'missing text inside the field name ""', 13],
      ['a | sort', 'missing a field to sort by', 8],
    ],
  });
});
