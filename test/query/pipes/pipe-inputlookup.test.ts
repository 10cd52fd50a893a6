import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the inputlookup pipe', () => {
  roundTrip({
    canonical: [
      '| inputlookup users',
      '| inputlookup users where team=core | stats count by team',
      '| inputlookup max=10 users.csv where team=core OR uid=u1*',
      '* | stats count by user | inputlookup append=true users',
      '| inputlookup start=2 users',
      '* | join uid [| inputlookup users]',
      '* | append [| inputlookup users | fields uid]',
    ],
    canonicalized: [
      ['  |inputlookup users', '| inputlookup users'],
      ['| inputlookup users append=t', '| inputlookup users'],
      ['x | inputlookup append=T users', 'x | inputlookup append=true users'],
      ['| inputlookup append=f users', '| inputlookup users'],
      ['x | join uid [ | inputlookup users ]', 'x | join uid [| inputlookup users]'],
    ],
    rejected: [
      [
        'a | inputlookup users',
        'inputlookup starts a search ("| inputlookup <table>" with nothing before it), or adds its rows with append=true',
        4,
      ],
      [
        '| stats count | inputlookup users',
        'inputlookup starts a search ("| inputlookup <table>" with nothing before it), or adds its rows with append=true',
        16,
      ],
      ['| inputlookup', 'unexpected end of query: missing the name of a lookup table', 13],
      ['| inputlookup append=maybe t', 'unexpected "maybe": missing true or false after "append="', 21],
      ['| inputlookup t where', 'unexpected end of query: missing a search expression after "where"', 21],
      [
        '| inputlookup t where error',
        "inputlookup … where compares the table's columns (column=value); error is not one",
        16,
      ],
      ['| inputlookup max=2 max=3 t', '"max" is given twice', 20],
    ],
  });
});
