import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the kv and logfmt pipes', () => {
  roundTrip({
    canonical: ['* | kv', '* | kv field=detail', '* | logfmt', '* | logfmt field=x | stats count by user'],
    canonicalized: [
      ['* | KV FIELD=detail', '* | kv field=detail'],
      ['* | LOGFMT', '* | logfmt'],
    ],
    rejected: [
      ['* | kv field', 'unexpected end of query: missing "="', 12],
      ['* | kv foo', 'unexpected "foo": after "kv"', 7],
      ['* | logfmt field=', 'unexpected end of query: missing a field after "field="', 17],
    ],
  });
});
