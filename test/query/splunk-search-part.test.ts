import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import type { SearchNode } from '../../src/query/search/filter-logic.js';
import { roundTrip } from './pipes/round-trip.js';

/**
 * The search part as Splunk users write it (issue 28): `IN`, `TERM()`/`CASE()`, OR binding tighter
 * than AND, values with colons, comments and macros (`IN` in where/eval is the expressions' own,
 * expr/expr.ts). Answers over real logs are in splunk-search-real.test.ts.
 */
const CANONICAL = [
  'TERM(10.0.0.1)',
  'TERM(10.0.0.*) NOT TERM(a.b)',
  'CASE(Error) CASE(%ASA-1*)',
  'CASE("Shutting down") OR "Shutdown complete"',
  'host=CASE(LOCALHOST)',
  'host!=CASE(Web*)',
  'sourcetype=WinEventLog:Security',
  'host=a:b source=/var/log/x:y',
  '(status=404 OR status=500) method=GET',
  'NOT (a OR b) c',
  '_raw=*timeout*',
  'date_wday=saturday date_hour>=22',
  '"user name"="a b" "src ip"!=10.0.0.1',
  'CommandLine="*-enc *"',
];

const CANONICALIZED: [string, string][] = [
  // a subsearch runs first (query/subsearch.ts), never read as the words "[search" and "b]"
  ['x [ search b ]', 'x [search b]'],
  ['user [| inputlookup admins]', 'user [| inputlookup admins]'],
  ['x | search a [search b]', 'x | search a [search b]'],
  ['status IN (404,500)', 'status=404 OR status=500'],
  ['status IN (404, "50*", 2*) method=GET', '(status=404 OR status="50*" OR status=2*) method=GET'],
  ['status IN ( 404 , 500 )', 'status=404 OR status=500'],
  ['status IN (404)', 'status=404'],
  ['NOT status IN (404,500)', 'NOT (status=404 OR status=500)'],
  ['-status IN (404,500)', 'NOT (status=404 OR status=500)'],
  ['host IN (a:b, c)', 'host=a:b OR host=c'],
  ['a OR b c', '(a OR b) c'],
  ['status=404 OR status=500 method=GET', '(status=404 OR status=500) method=GET'],
  ['a AND b OR c', 'a (b OR c)'],
  ['a OR b AND c OR d', '(a OR b) (c OR d)'],
  ['NOT a OR b', 'NOT a OR b'],
  ['(a b) OR c', '(a b) OR c'],
  ['x ```a comment``` y', 'x y'],
  ['```lead``` error | stats count ```by nothing``` | head 1', 'error | stats count | head 1'],
  ['x "```not a comment```"', 'x "```not a comment```"'],
  ['x | rex "a`b(?<c>.)"', 'x | rex "a`b(?<c>.)"'],
  ['host:a:b', 'host=a:b'],
  ['"properties.result"=success', 'properties.result=success'],
  ['"event.type" = acl_change', 'event.type=acl_change'],
  ['logged IN today', 'logged IN today'],
  ['-TERM(a.b)', 'NOT TERM(a.b)'],
  ['TERM("group=cascading") CASE(Foo)', 'TERM(group=cascading) CASE(Foo)'],
  ['-CASE("Shutting down")', 'NOT CASE("Shutting down")'],
  ['* | append [search a OR b c]', '* | append [search (a OR b) c]'],
  ['[error] timeout', '[error] timeout'],
];

const REJECTED: [string, string, number][] = [
  [
    '`sysmon` EventCode=1',
    'svc has no search macros: cannot expand `sysmon`; write the search it stands for instead',
    0,
  ],
  [
    'a | stats count by `f(x, y)`',
    'svc has no search macros: cannot expand `f(x, y)`; write the search it stands for instead',
    19,
  ],
  ['a ```open', 'missing closing ``` for the comment starting at position 2', 2],
  ['status IN (404 500)', 'unexpected "500": missing "," between values', 15],
  ['""=x', 'missing a field name inside ""', 0],
  [
    'error _index_earliest=-61m@m',
    'svc keeps no index time: _index_earliest cannot be honoured; bound the event time with earliest= or latest=',
    6,
  ],
  ['CASE("")', 'missing text inside the phrase ""', 5],
  ['status IN (404,,500)', 'unexpected ",": missing a value before it', 15],
  ['status IN (,404)', 'unexpected ",": missing a value before it', 11],
  ['status IN (404,)', 'unexpected ")": missing a value after ","', 15],
  ['status IN ()', 'missing a value inside "status IN ()"', 11],
  ['status IN (404', 'unexpected end of query: missing a value or ")" in "status IN (…)"', 14],
  ['1x IN (a)', 'invalid field name "1x"', 0],
  ['TERM(a b)', 'missing ")" closing TERM(: it takes one term without spaces or quotes', 6],
  ['TERM("a"b)', 'unexpected "b": missing ")"', 8],
  ['TERM()', 'missing a term inside TERM()', 5],
  ['TERM(*)', 'missing a term inside TERM()', 5],
  ['TERM(a,b)', 'TERM() cannot hold ",", a major breaker: no indexed term contains one', 6],
  ['TERM("a,b")', 'TERM() cannot hold ",", a major breaker: no indexed term contains one', 7],
  ['TERM("a b")', 'TERM() takes one term without spaces, quotes, ")" or "|": " " is not part of one', 5],
  ['x=TERM(a)', 'TERM() applies to search terms, not to field values', 2],
  ['x>CASE(a)', 'CASE() applies to "=" and "!=", not ">"', 2],
];

describe('the search part as Splunk users write it', () => {
  roundTrip({ canonical: CANONICAL, canonicalized: CANONICALIZED, rejected: REJECTED });

  const field = (value: string, quoted = false): SearchNode => ({
    kind: 'field',
    field: 'status',
    op: '=',
    value,
    quoted,
  });

  it('reads field IN (…) as the OR of field=value filters, quoted values kept quoted', () => {
    assert.deepEqual(parse('status IN (404, "5*")').search, { kind: 'or', items: [field('404'), field('5*', true)] });
  });

  it('reads TERM() and CASE() as directives, not words', () => {
    assert.deepEqual(parse('TERM(10.0.0.1)').search, { kind: 'term', text: '10.0.0.1', directive: 'TERM' });
    assert.deepEqual(parse('CASE(Error)').search, { kind: 'term', text: 'Error', directive: 'CASE' });
    // lower case and a space before "(" leave plain words, as before
    assert.equal(print(parse('term(x)')), 'term x');
    assert.equal(print(parse('TERM (x)')), 'TERM x');
  });

  it('keeps a colon inside a value after "=" and the field test of a bare name:value', () => {
    assert.deepEqual(parse('sourcetype=WinEventLog:Security').search, {
      kind: 'field',
      field: 'sourcetype',
      op: '=',
      value: 'WinEventLog:Security',
      quoted: false,
    });
    assert.deepEqual(parse('host:web01').search, {
      kind: 'field',
      field: 'host',
      op: '=',
      value: 'web01',
      quoted: false,
    });
  });

  it('removes comments without moving the positions of errors after them', () => {
    assert.throws(
      () => parse('```abc``` a |'),
      (e: Error & { details?: { position?: number } }) => e.details?.position === 13,
    );
  });
});
