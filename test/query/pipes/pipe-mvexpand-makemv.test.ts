import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the mvexpand pipe', () => {
  roundTrip({
    canonical: ['* | mvexpand new_ace', '* | mvexpand ip limit=10', '* | mvexpand data.changes{}'],
    canonicalized: [
      ['x | mvexpand limit=3 ip', 'x | mvexpand ip limit=3'],
      ['x | mvexpand ip limit=0', 'x | mvexpand ip'],
    ],
    rejected: [
      ['a | mvexpand', 'missing a field to expand', 12],
      ['a | mvexpand a b', 'mvexpand takes one field without wildcards, not "a b"', 16],
      ['a | mvexpand a*', 'mvexpand takes one field without wildcards, not "a*"', 15],
      ['a | mvexpand a limit=x', 'unexpected "x": missing a value count after "limit=" (a positive integer)', 21],
      ['a | mvexpand limit=2 a limit=3', '"limit" is given twice', 23],
    ],
  });
});

describe('the makemv pipe', () => {
  roundTrip({
    canonical: [
      '* | makemv answer',
      '* | makemv delim="~~" asset_ip',
      '* | makemv tokenizer="([^,]+),?" senders',
      '* | makemv delim="," allowempty=true senders',
    ],
    canonicalized: [
      ['x | makemv asset_ip delim="~~"', 'x | makemv delim="~~" asset_ip'],
      ['x | makemv delim=" " type allowempty=f', 'x | makemv delim=" " type'],
      // Splunk also takes the tokenizer unquoted, up to the next space (the corpus's `tokenizer=(\S+)`)
      ['x | makemv indexes tokenizer=(\\S+)', 'x | makemv tokenizer="(\\S+)" indexes'],
      [
        'x | makemv tokenizer=([^,]+),? senders | mvexpand senders',
        'x | makemv tokenizer="([^,]+),?" senders | mvexpand senders',
      ],
    ],
    rejected: [
      ['a | makemv', 'missing a field to split', 10],
      ['a | makemv delim=, f', 'unexpected ",": missing a quoted value after "delim="', 17],
      ['a | makemv delim="" f', 'delim= takes a value that is not empty', 17],
      ['a | makemv delim="," tokenizer="(a)" f', 'makemv takes delim= or tokenizer=, not both', 31],
      ['a | makemv tokenizer="a+" f', 'tokenizer "a+" needs a capturing group (…)', 21],
      ['a | makemv f setsv=true', 'makemv setsv= is not supported', 13],
      ['a | makemv a b', 'makemv takes one field without wildcards, not "a b"', 14],
      ['a | makemv tokenizer= f', 'unexpected "f": missing a regex after "tokenizer="', 22],
      ['a | makemv f tokenizer=|x', 'unexpected "|": missing a regex after "tokenizer="', 23],
      ['a | makemv tokenizer=a+ f', 'tokenizer "a+" needs a capturing group (…)', 21],
      [
        'a | makemv tokenizer=(a f',
        'cannot parse tokenizer "(a": Invalid regular expression: /(a|/: Unterminated group',
        21,
      ],
    ],
  });
});
