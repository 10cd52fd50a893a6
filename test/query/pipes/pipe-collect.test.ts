import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the collect pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | collect index=summary',
      '* | collect index=summary sourcetype=stash source=daily host=sh-1 testmode=true',
      '* | collect index=s sourcetype="my type"',
    ],
    canonicalized: [
      ['x | collect testmode=f index=s', 'x | collect index=s testmode=false'],
      ['x | collect host=h index="s"', 'x | collect index=s host=h'],
    ],
    rejected: [
      ['a | collect', 'unexpected end of query: missing index=<name>: the index collect writes to', 11],
      ['a | collect sourcetype=x', 'unexpected end of query: missing index=<name>: the index collect writes to', 24],
      ['a | collect index=a index=b', '"index" is given twice', 20],
      ['a | collect index=a split=true', 'collect split= is not supported', 20],
      ['a | collect index=a marker="x"', 'collect marker= is not supported', 20],
      ['a | collect index=a testmode=maybe', 'unexpected "maybe": missing true or false after "testmode="', 29],
      ['a | collect index=a other', 'unexpected "other": after "collect"', 20],
    ],
  });
});
