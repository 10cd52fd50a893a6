import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip } from './round-trip.js';
import { patternRegex } from '../../../src/query/pipes/pipe-extract.js';

describe('the extract pipe', () => {
  roundTrip({
    canonical: [
      '* | extract "<a> <b>"',
      '* | extract field=x "a=<a>"',
      '* | extract "x <_> <y>" | stats count by y',
      '* | extract "<ip> - - [<_>] \\"<method> <uri> <_>\\" <status> <bytes> <_>"',
    ],
    canonicalized: [['* | EXTRACT FIELD=x "<a>;"', '* | extract field=x "<a>;"']],
    rejected: [
      ['* | extract "abc"', 'missing a placeholder <name> in extract pattern "abc"', 12],
      ['* | extract "<a><b>"', 'two placeholders need literal text between them in extract pattern "<a><b>"', 12],
      ['* | extract "<a> <a>"', 'the placeholder <a> is used twice in extract pattern "<a> <a>"', 12],
      ['* | extract abc', 'unexpected "abc": missing a quoted pattern after "extract"', 12],
    ],
  });

  it('turns a pattern into a regex: literals escaped, placeholders up to the next literal, the last to the end', () => {
    assert.equal(patternRegex('[<t>] <lvl>: <msg>'), '(?s)\\[(?P<t>.*?)\\] (?P<lvl>.*?): (?P<msg>.*)');
    assert.equal(patternRegex('a=<_> b=<b>;'), '(?s)a=(?:.*?) b=(?P<b>.*?);');
  });
});
