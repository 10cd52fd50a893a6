import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the eval pipe', () => {
  roundTrip({
    canonical: [
      '* | eval kb=bytes / 1024',
      '* | eval kb=bytes / 1024, big=if(kb > 1, "yes", "no"), s=host . ":" . port',
      '* | eval x=-a, y=round(ratio * 100, 2), z=coalesce(a, b, "none")',
      '* | eval t=strftime(_time, "%H:%M"), u=lower(upper(host)), n=now(), v=null, w=true',
    ],
    canonicalized: [['x | eval y = 1 + 2*3', 'x | eval y=1 + 2 * 3']],
    rejected: [
      ['a | eval', 'unexpected end of query: missing a field name to assign', 8],
      ['a | eval x', 'unexpected end of query: missing "=" after "x"', 10],
    ],
  });
});
