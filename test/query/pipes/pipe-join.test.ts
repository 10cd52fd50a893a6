import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the join pipe', () => {
  roundTrip({
    canonical: [
      '* | join domain [search * | stats count by domain]',
      '* | join type=left user [search index=auth | stats count as logins by user]',
      '* | join max=0 overwrite=false proc_guid, _time [search x | fields proc_guid, _time, y]',
      '* | join [search status=500 | stats count by host]',
    ],
    canonicalized: [
      ['x | join ObjectDN type=outer [search y]', 'x | join type=left ObjectDN [search y]'],
      ['x | join type=inner a,b [y]', 'x | join a, b [search y]'],
      ['x | join user HourOfDay isWeekend [search y]', 'x | join user, HourOfDay, isWeekend [search y]'],
      ['x | join max=1 a [ search y ]', 'x | join a [search y]'],
    ],
    rejected: [
      ['a | join', 'unexpected end of query: missing the subsearch in [brackets]', 8],
      ['a | join host', 'unexpected end of query: missing the subsearch in [brackets]', 13],
      ['a | join type=right h [search b]', 'unexpected "right": join type is inner, left or outer', 14],
      ['a | join max=x h [search b]', 'unexpected "x": missing a whole number after "max=" (0: no limit)', 13],
      ['a | join type=left type=left h [b]', '"type" is given twice', 19],
      ['a | join h* [search b]', 'unexpected "h*": join takes field names without wildcards', 9],
      ['a | join usetime=true h [search b]', 'join usetime= is not supported', 9],
      ['a | join h [search b', 'missing "]" closing the subsearch', 11],
      ['a | join h [search b | nope]', 'unknown command "nope"', 23],
    ],
  });
});
