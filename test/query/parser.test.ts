import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../../src/query/parser.js';
import { roundTrip } from './pipes/round-trip.js';

/** Canonical queries of the search part (each pipe's are in test/query/pipes/): each prints back to itself. */
const CANONICAL = [
  '*',
  'error',
  'Error failed',
  '"connection refused"',
  '"say \\"hi\\""',
  'foo* *bar f*o',
  'a OR b',
  '(a OR b) c',
  'a (b OR c)',
  '(a b) OR c',
  'NOT a',
  'NOT (a b)',
  'NOT (a OR b)',
  'a NOT b',
  'host=web01',
  'host=web*',
  'host="web 01"',
  'status!=200',
  'status>500 status>=500 status<300 status<=299',
  'bytes>-1.5',
  'id.orig_h=10.0.0.1',
  'earliest=-15m latest=now error',
  'earliest=-1d@d',
  'earliest=2024-05-01T00:00:00Z latest=1714600000',
  'earliest="2024-05-01 10:00:00"',
  'http://example.com/a?b',
  '10.0.0.1',
  'user@example.com',
  '* | stats count, dc(\'src ip\') by "id orig", host',
  '* | bin span=1h _time | stats count by _time, host',
  'error host=web* | rex "took (?<ms>\\d+)ms" | eval s=ms / 1000 | where s > 1 | stats count, p95(s) by host | sort -count | head 3',
];

/** Accepted spellings and their canonical form. */
const CANONICALIZED: [string, string][] = [
  ['', '*'],
  ['a AND b', 'a b'],
  ['-a', 'NOT a'],
  ['-host=x', 'NOT host=x'],
  ['host:web01', 'host=web01'],
  ['host:"a b"', 'host="a b"'],
  ['(a b)', 'a b'],
  ['a (b c)', 'a b c'],
  ['a OR (b OR c)', 'a OR b OR c'],
  ['a OR b c', '(a OR b) c'],
  ['a b OR c', 'a (b OR c)'],
  ['  error    failed  ', 'error failed'],
  // Splunk ignores an empty phrase
  ['a ""', 'a *'],
  ['sourcetype=splunkd "" | stats count', 'sourcetype=splunkd * | stats count'],
];

/** Rejected queries, with the expected message and position. */
const REJECTED: [string, string, number][] = [
  ['a |', 'unexpected end of query: missing a command after "|"', 3],
  ['a | foo', 'unknown command "foo"', 4],
  ['(a', 'unexpected end of query: missing ")"', 2],
  ['a)', 'unexpected ")"', 1],
  ['a OR', 'unexpected end of query: missing a search term', 4],
  ['AND a', 'unexpected "AND": missing a search term before it', 0],
  ['a AND', 'unexpected end of query: missing a search term after "AND"', 5],
  ['NOT', 'unexpected end of query: missing a search term after "NOT"', 3],
  ['host=', 'unexpected end of query: missing a value after "host="', 5],
  ['"open', 'missing closing " for the string starting at position 0', 0],
  ['1host=x', 'invalid field name "1host"', 0],
  [
    'earliest=yesterday',
    'cannot parse earliest time "yesterday": want RFC 3339, epoch seconds, now or relative like -15m',
    9,
  ],
];

describe('query parser', () => {
  roundTrip({ canonical: CANONICAL, canonicalized: CANONICALIZED, rejected: REJECTED });

  it('keeps terms case as written but ANDs implicitly', () => {
    const q = parse('Error FAILED');
    assert.deepEqual(q.search, {
      kind: 'and',
      items: [
        { kind: 'term', text: 'Error' },
        { kind: 'term', text: 'FAILED' },
      ],
    });
  });

  it('binds OR tighter than AND, as Splunk does', () => {
    assert.deepEqual(parse('a b OR c').search, {
      kind: 'and',
      items: [
        { kind: 'term', text: 'a' },
        {
          kind: 'or',
          items: [
            { kind: 'term', text: 'b' },
            { kind: 'term', text: 'c' },
          ],
        },
      ],
    });
  });
});
