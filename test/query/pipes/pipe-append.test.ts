import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the append pipe', () => {
  roundTrip({
    canonical: [
      '* | append [search error | stats count]',
      'a | append [search x | append [search y]]',
      'a | append [search "]"]',
      'a | stats count by host | append [search b | stats count by host] | sort -count',
    ],
    canonicalized: [
      [
        'a | stats count by host | append [ b | stats count by host ] | sort -count',
        'a | stats count by host | append [search b | stats count by host] | sort -count',
      ],
      ['a | APPEND [SEARCH x]', 'a | append [search x]'],
    ],
    rejected: [
      ['a | append x', 'unexpected "x": missing subsearch in [brackets]', 11],
      ['a | append [search ]', "missing a query inside the subsearch's brackets", 11],
      ['a | append [search foo | nosuch]', 'unknown command "nosuch"', 25],
      ['a | append [search x', 'missing "]" closing the subsearch', 11],
      ['a | append [search x] y', 'unexpected "y": after "append"', 22],
    ],
  });
});
