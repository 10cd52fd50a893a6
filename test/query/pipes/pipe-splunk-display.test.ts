import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

/** The round trips of addinfo, fieldformat, nomv, addcoltotals, fromjson, xmlkv and searchmatch (issue 28). */

describe('the addinfo pipe', () => {
  roundTrip({
    canonical: [
      '* | addinfo',
      '* | stats count by app | addinfo | eval minutes=round((info_max_time - info_min_time) / 60)',
    ],
    canonicalized: [['x | ADDINFO', 'x | addinfo']],
    rejected: [['a | addinfo x', 'unexpected "x": after "addinfo"', 12]],
  });
});

describe('the fieldformat pipe', () => {
  roundTrip({
    canonical: [
      '* | fieldformat first_seen=strftime(first_seen / 1000, "%c")',
      '* | stats sum(bytes) as total by host | fieldformat total=tostring(total, "commas") | where total > 5',
      "* | fieldformat 'user name'=upper('user name')",
    ],
    canonicalized: [
      [
        'x | fieldformat first_seen=strftime(\'first_seen\' / 1000, "%c")',
        'x | fieldformat first_seen=strftime(first_seen / 1000, "%c")',
      ],
      ['x | fieldformat "user name"=upper(x)', "x | fieldformat 'user name'=upper(x)"],
    ],
    rejected: [
      ['a | fieldformat', 'unexpected end of query: missing a field name to format', 15],
      ['a | fieldformat x', 'unexpected end of query: missing "=" after "x"', 17],
      ['a | fieldformat x=', 'unexpected end of query: missing a value, field or function', 18],
      ['a | fieldformat x=1, y=2', 'fieldformat formats one field: write one fieldformat per field', 19],
    ],
  });
});

describe('the nomv pipe', () => {
  roundTrip({
    canonical: ['* | nomv unknown_roles', '* | nomv "user roles"'],
    rejected: [
      ['a | nomv', 'missing a field to join', 8],
      ['a | nomv a b', 'nomv takes one field without wildcards, not "a b"', 12],
      ['a | nomv a*', 'nomv takes one field without wildcards, not "a*"', 11],
    ],
  });
});

describe('the addcoltotals pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | addcoltotals',
      '* | stats count by host | addcoltotals labelfield=host',
      '* | stats count by host | addcoltotals labelfield=host label="All hosts" count',
      '* | stats count, sum(bytes) as b by host | addcoltotals label=Sum count b*',
    ],
    canonicalized: [
      ['x | addcoltotals labelfield=host label=Total', 'x | addcoltotals labelfield=host'],
      ['x | addcoltotals count label=all', 'x | addcoltotals label=all count'],
      ['x | addcoltotals labelfield="host"', 'x | addcoltotals labelfield=host'],
    ],
    rejected: [
      ['a | addcoltotals label=', 'unexpected end of query: missing a value after "label="', 23],
      ['a | addcoltotals label=a label=b', '"label" is given twice', 25],
      ['a | addcoltotals labelfield host', 'unexpected "host": missing "=" after "labelfield"', 28],
    ],
  });
});

describe('the fromjson pipe', () => {
  roundTrip({
    canonical: ['* | fromjson Data', '* | fromjson Data prefix=d_', '* | fromjson Data prefix="d "'],
    canonicalized: [['x | fromjson prefix=d_ Data', 'x | fromjson Data prefix=d_']],
    rejected: [
      ['a | fromjson', 'missing a field holding JSON', 12],
      ['a | fromjson a b', 'fromjson takes one field without wildcards, not "a b"', 16],
      ['a | fromjson a prefix=', 'unexpected end of query: missing a text after "prefix="', 22],
      ['a | fromjson prefix=x a prefix=y', '"prefix" is given twice', 24],
    ],
  });
});

describe('the xmlkv pipe', () => {
  roundTrip({
    canonical: ['* | xmlkv', '* | xmlkv Message', '* | xmlkv UserData_Xml | stats count by Arguments'],
    canonicalized: [
      ['x | xmlkv Message| search Arguments=*http*', 'x | xmlkv Message | search Arguments=*http*'],
      // a batch size of Splunk's script: no answer depends on it
      ['x | xmlkv maxinputs=10000', 'x | xmlkv'],
      ['x | xmlkv Message maxinputs=10', 'x | xmlkv Message'],
    ],
    rejected: [
      ['a | xmlkv a b', 'xmlkv takes one field without wildcards, not "a b"', 13],
      ['a | xmlkv maxinputs=x', 'unexpected "x": missing a batch size after "maxinputs=" (a positive integer)', 20],
    ],
  });
});

describe('the transpose pipe', () => {
  roundTrip({
    canonical: [
      '* | stats count by host | transpose',
      '* | stats count by host | transpose 0 column_name="xaxis" header_field=perc',
      '* | stats count by host | transpose 3 header_field=host include_empty=false',
    ],
    canonicalized: [
      ['x | transpose 5 column_name=column', 'x | transpose'],
      [
        'x | transpose column_name="xaxis" header_field="perc" 10',
        'x | transpose 10 column_name="xaxis" header_field=perc',
      ],
    ],
    rejected: [
      ['a | transpose | stats count', 'unexpected "|": transpose must be the last pipe', 14],
      ['a | transpose 20000', '"20000" is too large for transpose (at most 10000 rows)', 14],
      ['a | transpose 2 3', 'unexpected "3": after "transpose"', 16],
      ['a | transpose column_name=', 'unexpected end of query: missing a value after "column_name="', 26],
      ['a | transpose include_empty=maybe', 'unexpected "maybe": missing true or false after "include_empty="', 28],
    ],
  });
});

describe('the searchmatch function', () => {
  roundTrip({
    canonical: [
      '* | stats count(eval(searchmatch("outside of the acceptable time window"))) as n',
      '* | stats dc(msgpeer) as count, count(eval(searchmatch("source=*scheduler_*"))) as schedulerCount',
      '* | where searchmatch("status=404 (GET OR HEAD) NOT wp-login*")',
      '* | eval hit=if(searchmatch("host IN (a, b)"), 1, 0)',
    ],
    rejected: [
      ['a | where searchmatch(x)', 'unexpected "x": searchmatch takes a search expression in quotes', 22],
      ['a | where searchmatch()', 'unexpected ")": searchmatch takes a search expression in quotes', 22],
      ['a | where searchmatch("a", "b")', 'function "searchmatch" takes 1 argument, not 2', 10],
      ['a | where searchmatch("")', 'unexpected end of query: missing a search expression', 23],
      ['a | where searchmatch("a | b")', 'a search expression here cannot hold a pipe "|"', 25],
      ['a | where searchmatch("x=1 (b")', 'unexpected end of query: missing ")"', 29],
      ['a | where searchmatch("AND b")', 'unexpected "AND": missing a search term before it', 23],
      // an escape shifts the text from the source: the error points at the string
      ['a | where searchmatch("\\"a\\" (")', 'unexpected end of query: missing a search term', 22],
      [
        'a | where searchmatch("earliest=-1h")',
        'searchmatch: earliest and latest set the time range only in the search before the first "|"',
        22,
      ],
    ],
  });
});
