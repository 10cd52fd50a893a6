import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

/** The commands that hold a pipeline or searches in brackets: foreach, appendpipe, multisearch, appendcols. */
const STREAMING =
  'search, where, eval, rex, regex, rename, fields, spath, kv, logfmt, extract, convert, makemv, mvexpand, lookup, nomv, fromjson, xmlkv, iplocation, bin with span=';

describe('the foreach pipe', () => {
  roundTrip({
    canonical: [
      'a | foreach a* [eval x=1]',
      'a | foreach a* [eval relevant_fields=if(type="EXECVE", mvappend(relevant_fields, \'<<FIELD>>\'), relevant_fields)]',
      'a | foreach *_by_* [eval <<MATCHSEG2>>_<<MATCHSEG1>>=1]',
      'a | foreach "a b*" fieldstr="#F#" [eval #F#=1]',
      'a | foreach stdev_* [eval z=<<MATCHSTR>> / <<FIELD>> | eval y=1]',
    ],
    canonicalized: [
      [
        'a | foreach avg*, std* upperBound* [ | eval <<FIELD>>=round(<<FIELD>>, 2) ]',
        'a | foreach avg* std* upperBound* [| eval <<FIELD>>=round(<<FIELD>>, 2)]',
      ],
      ['a | foreach mode=multifield x* [eval s=s+<<FIELD>>]', 'a | foreach x* [eval s=s+<<FIELD>>]'],
      ['a | foreach x* matchstr=MS [eval y=MS]', 'a | foreach x* matchstr="MS" [eval y=MS]'],
    ],
    rejected: [
      ['a | foreach', 'unexpected end of query: missing the template in [brackets]', 11],
      ['a | foreach x*', 'unexpected end of query: missing the template in [brackets]', 14],
      ['a | foreach [eval x=1]', 'foreach takes field names or patterns before its template', 4],
      [
        'a | foreach mode=multivalue x [eval s=1]',
        'foreach mode=multivalue is not supported: svc runs foreach over fields (mode=multifield)',
        17,
      ],
      [
        'a | foreach x* itemstr=x [eval y=1]',
        'foreach itemstr= is not supported: svc runs foreach over fields (mode=multifield)',
        15,
      ],
      [
        'a | foreach x* [eval x=1 | where x>1]',
        'foreach runs eval commands only, not where: svc substitutes the field names into eval',
        27,
      ],
      [
        'a | foreach x* [stats count]',
        'foreach runs eval commands only, not stats: svc substitutes the field names into eval',
        16,
      ],
      ['a | foreach x* [eval <<FIELD>>=(]', 'unexpected end of query: missing a value, field or function', 32],
      [
        'a | foreach x* y [eval <<MATCHSTR>>=1]',
        '<<MATCHSTR>> stands for what the pattern\'s one "*" matched: "y" has 0',
        17,
      ],
      [
        'a | foreach *_by_* [eval <<MATCHSEG3>>=1]',
        '<<MATCHSEG3>> stands for what the pattern\'s third "*" matched: "*_by_*" has fewer',
        19,
      ],
      ['a | foreach x* fieldstr= [eval y=1]', 'unexpected "[eval": missing a value after "fieldstr="', 25],
      ['a | foreach x* fieldstr=a fieldstr=b [eval y=1]', '"fieldstr" is given twice', 26],
      ['a | foreach x* [eval y=1', 'missing "]" closing the foreach template', 15],
      ['a | foreach x* [ ]', "missing a query inside the foreach template's brackets", 15],
    ],
  });
});

describe('the appendpipe pipe', () => {
  roundTrip({
    canonical: [
      'a | stats count by a, b | appendpipe [stats sum(count) as count by a]',
      'a | appendpipe [| inputlookup users | eval x=1]',
      'a | appendpipe [search x=1 | eval y=2]',
    ],
    canonicalized: [
      ['a | appendpipe [ | stats count | where count==0 ]', 'a | appendpipe [stats count | where count = 0]'],
    ],
    rejected: [
      ['a | appendpipe', 'unexpected end of query: missing appendpipe pipeline in [brackets]', 14],
      ['a | appendpipe [nope]', 'unknown command "nope"', 16],
      ['a | appendpipe [x=1]', 'unknown command "x"', 16],
      ['a | appendpipe [stats count', 'missing "]" closing the appendpipe pipeline', 15],
      ['a | appendpipe [ ]', "missing a query inside the appendpipe pipeline's brackets", 15],
    ],
  });
});

describe('the multisearch command', () => {
  roundTrip({
    canonical: [
      '| multisearch [search a | eval k=1] [search b]',
      '| multisearch [search a] [search b] [search c | where x > 1] | stats count',
    ],
    canonicalized: [
      ['| multisearch [a] [ search b | bin _time span=1h]', '| multisearch [search a] [search b | bin span=1h _time]'],
    ],
    rejected: [
      [
        'x | multisearch [a] [b]',
        'multisearch starts a search ("| multisearch [search …] [search …]" with nothing before it)',
        4,
      ],
      ['| multisearch [a]', 'multisearch takes at least two searches in [brackets]', 2],
      [
        '| multisearch [a] [b | stats count]',
        `multisearch's searches may only hold streaming commands (${STREAMING}), not stats: aggregate after the multisearch`,
        18,
      ],
      [
        '| multisearch [a] [b | bin _time]',
        `multisearch's searches may only hold streaming commands (${STREAMING}), not bin: aggregate after the multisearch`,
        18,
      ],
      ['| multisearch [a] b', 'unexpected "b": missing search in [brackets]', 18],
    ],
  });
});

describe('the appendcols pipe', () => {
  roundTrip({
    canonical: ['a | appendcols [search b | stats count]', 'a | appendcols override=true [search b]'],
    canonicalized: [
      ['a | appendcols override=t [b]', 'a | appendcols override=true [search b]'],
      ['a | appendcols override=false [b]', 'a | appendcols [search b]'],
    ],
    rejected: [
      ['a | appendcols', 'unexpected end of query: missing the subsearch in [brackets]', 14],
      ['a | appendcols override=maybe [b]', 'unexpected "maybe": missing true or false after "override="', 24],
      [
        'a | appendcols maxtime=10 [b]',
        'appendcols maxtime= is not supported: svc bounds a search by its own timeout',
        15,
      ],
      ['a | appendcols x [b]', 'unexpected "x": appendcols takes override= and then the subsearch in [brackets]', 15],
      ['a | appendcols override=t override=f [b]', '"override" is given twice', 26],
    ],
  });
});
