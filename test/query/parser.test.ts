import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import { isSvcError } from '../../src/errors/svc-error.js';

/** Canonical queries: each prints back to itself. */
const CANONICAL = [
  '*',
  'error',
  'Error failed',
  '"connection refused"',
  '"say \\"hi\\""',
  'foo* *bar f*o',
  'a OR b',
  'a OR b c',
  '(a OR b) c',
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
  '* | stats count by index',
  '* | stats count',
  'error | stats count, count(host), sum(bytes), avg(bytes) as mean, min(ms), max(ms), dc(host), values(status), p50(ms), p95(ms), p99(ms) by host, status',
  '* | stats median(ms) as m',
  '* | timechart span=1m count',
  '* | timechart span=1h count by host',
  '* | timechart avg(ms), max(ms) by host',
  '* | timechart span=5m count by "user name"',
  '* | where status >= 500 AND host = "a"',
  '* | where status >= 500 OR NOT isnull(x)',
  '* | where (a + b) * 2 > 3',
  '* | where a - (b - c) = 1',
  '* | where NOT (a = 1 OR b = 2)',
  '* | where match(message, "^GET ") AND len(host) > 3',
  '* | eval kb=bytes / 1024',
  '* | eval kb=bytes / 1024, big=if(kb > 1, "yes", "no"), s=host . ":" . port',
  '* | eval x=-a, y=round(ratio * 100, 2), z=coalesce(a, b, "none")',
  '* | eval t=strftime(_time, "%H:%M"), u=lower(upper(host)), n=now(), v=null, w=true',
  '* | rex "user=(?<user>\\w+)"',
  '* | rex field=path "^/api/(?<version>v\\d+)/(?<resource>[a-z]+)"',
  '* | fields host, status',
  '* | fields - message, id.*',
  '* | fields + host',
  '* | table _time host message',
  '* | table id.*',
  '* | sort -count, host',
  '* | sort 5 _time',
  '* | head 5',
  '* | tail 3',
  '* | top host',
  '* | top 5 host, status',
  '* | top 3 uri by host',
  '* | dedup 2 host, status',
  '* | rare status by host, env',
  '* | rare 3 status',
  '* | dedup host, status',
  '* | stats count by "user name"',
  "* | stats count, dc('src ip') by \"id orig\", host",
  '* | table _time "user name" host',
  '* | table "say \\"hi\\"" "C:\\temp"',
  '* | fields "user name", host',
  '* | fields - "user name", id.*',
  '* | dedup 2 "user name", host',
  '* | top 3 "user name" by "src ip"',
  '* | rare "by"',
  '* | sort -"user name", host',
  '* | sort num(bytes), -str(host)',
  '* | sort 5 -num("bytes in"), ip(src), str(_time)',
  '* | rename host as server, "user name" as user',
  '* | rename id.* as conn_*',
  '* | bin span=1h _time | stats count by _time, host',
  '* | bin span=100 bytes as range',
  '* | bin _time',
  'error host=web* | rex "took (?<ms>\\d+)ms" | eval s=ms / 1000 | where s > 1 | stats count, p95(s) by host | sort -count | head 3',
];

/** Accepted spellings and their canonical form. */
const CANONICALIZED: [string, string][] = [
  ['', '*'],
  ['| stats count', '* | stats count'],
  ['a AND b', 'a b'],
  ['-a', 'NOT a'],
  ['-host=x', 'NOT host=x'],
  ['host:web01', 'host=web01'],
  ['host:"a b"', 'host="a b"'],
  ['(a b)', 'a b'],
  ['a (b c)', 'a b c'],
  ['a OR (b OR c)', 'a OR b OR c'],
  ['  error    failed  ', 'error failed'],
  ['x|stats count BY host,status', 'x | stats count by host, status'],
  ['x | stats count AS n', 'x | stats count as n'],
  ["* | timechart count by 'user name'", '* | timechart count by "user name"'],
  ['* | timechart count by "host"', '* | timechart count by host'],
  ['x | stats count avg(ms)', 'x | stats count, avg(ms)'],
  ['x | STATS Count', 'x | stats count'],
  ['x | where a==1', 'x | where a = 1'],
  ['x | where ((a))', 'x | where a'],
  ['x | eval y = 1 + 2*3', 'x | eval y=1 + 2 * 3'],
  ['x | table a, b', 'x | table a b'],
  ['x | fields a b', 'x | fields a, b'],
  ['x | fields -a, b', 'x | fields - a, b'],
  ['x | sort +a', 'x | sort a'],
  ['x | head', 'x | head 10'],
  ['x | tail', 'x | tail 10'],
  ['x | top limit=3 host', 'x | top 3 host'],
  ['x | rex field=message "a(?P<n>b)"', 'x | rex field=message "a(?P<n>b)"'],
  ['* | stats count by "id.orig_h"', '* | stats count by id.orig_h'],
  ['* | table _time, "user name"', '* | table _time "user name"'],
  ['x | table "a","b",c', 'x | table a b c'],
  ['x | fields "x"', 'x | fields x'],
  ['x | fields -"a b", c', 'x | fields - "a b", c'],
  ['x | top "by" BY "a b"', 'x | top "by" by "a b"'],
  ['x | sort NUM(a)', 'x | sort num(a)'],
  ['x | sort +num(a),-str("b c")', 'x | sort num(a), -str("b c")'],
  ['x | sort -"a b",+"c"', 'x | sort -"a b", c'],
  ['x | dedup "*"', 'x | dedup *'],
  ['x | rename a AS b c AS d', 'x | rename a as b, c as d'],
  ['x | bucket span=5m _time', 'x | bin span=5m _time'],
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
  ['a ""', 'missing text inside the phrase ""', 2],
  ['1host=x', 'invalid field name "1host"', 0],
  ['earliest=yesterday', 'cannot parse earliest time "yesterday": want RFC 3339, epoch seconds, now or relative like -15m', 9],
  ['a | stats', 'unexpected end of query: missing an aggregation', 9],
  ['a | stats bogus', 'unexpected "bogus": missing an aggregation (count, sum, avg, min, max, dc, values, p50, p95, p99)', 10],
  ['a | stats sum', 'unexpected end of query: missing "(field)" after "sum"', 13],
  ['a | stats sum(', 'unexpected end of query: missing a field for "sum"', 14],
  ['a | stats count by', 'missing a field after "by"', 18],
  ['a | stats count as', 'unexpected end of query: missing a name after "as"', 18],
  ['a | timechart span=fast count', 'unexpected "fast": missing a span such as 30s, 1m, 1h or 1d', 19],
  ['a | where', 'unexpected end of query: missing a value, field or function', 9],
  ['a | where x >', 'unexpected end of query: missing a value, field or function', 13],
  ['a | where (x', 'unexpected end of query: missing ")"', 12],
  ['a | where nosuch(x)', 'unknown function "nosuch"', 10],
  ['a | where if(x)', 'function "if" takes 3 arguments, not 1', 10],
  ['a | where x y', 'unexpected "y": after "where"', 12],
  ['a | eval', 'unexpected end of query: missing a field name to assign', 8],
  ['a | eval x', 'unexpected end of query: missing "=" after "x"', 10],
  ['a | rex', 'unexpected end of query: missing a quoted regex after "rex"', 7],
  ['a | rex "no groups"', 'missing a named group (?<name>...) in rex regex "no groups"', 8],
  ['a | rex "(?<a>x"', 'cannot parse rex regex "(?<a>x": /(?<a>x/: Unterminated group', 8],
  ['a | rex "(?<a>x)(?=y)"', 'cannot use lookaround or backreferences in rex regex "(?<a>x)(?=y)"', 8],
  ['a | head 0', 'unexpected "0": missing a row count (a positive integer)', 9],
  ['a | head x', 'unexpected "x": missing a row count (a positive integer)', 9],
  ['a | table', 'missing a field name', 9],
  ['a | table ""', 'missing text inside the field name ""', 10],
  ['a | table "a"b', 'unexpected "b": missing a space or comma before it', 13],
  ['a | table a(b)', 'unexpected "(": missing a field name', 11],
  ['a | stats count by "x" "', 'missing closing " for the string starting at position 23', 23],
  ['a | sort foo(x)', 'unknown sort function "foo": want num, str or ip', 9],
  ['a | sort num(', 'unexpected end of query: missing a field inside "num(...)"', 13],
  ['a | sort num()', 'unexpected ")": missing a field inside "num(...)"', 13],
  ['a | sort num(x', 'unexpected end of query: missing ")"', 14],
  ['a | sort num(x y)', 'unexpected "y": missing ")"', 15],
  ['a | sort num(x)y', 'unexpected "y": missing a space or comma before it', 15],
  ['a | sort - "x"', 'unexpected "-": missing a field to sort by', 9],
  ['a | sort num("")', 'missing text inside the field name ""', 13],
  ['a | sort', 'missing a field to sort by', 8],
  ['a | top', 'missing a field name', 7],
  ['a | top uri by', 'missing a field after "by"', 14],
  ['a | dedup', 'missing a field name', 9],
  ['a | rename x', 'unexpected end of query: missing "as" and a new name', 12],
  ['a | rename x as', 'missing a new name after "as"', 15],
  ['a | rename x y as z', 'rename takes pairs "<field> as <new name>" separated by commas, not "x y z"', 19],
  ['a | rename x* as y', '"x* as y": both names need as many "*"', 18],
  ['a | bin span=fast _time', 'unexpected "fast": missing a span such as 1h, 5m or 100', 13],
  ['a | bin', 'missing a field to bin', 7],
  ['a | bin x y', 'unexpected "y": bin takes one field', 11],
];

describe('query parser', () => {
  for (const q of CANONICAL) {
    it(`prints ${JSON.stringify(q)} back to itself`, () => {
      assert.equal(print(parse(q)), q);
    });
  }

  for (const [q, canonical] of CANONICALIZED) {
    it(`reads ${JSON.stringify(q)} as ${JSON.stringify(canonical)}`, () => {
      assert.equal(print(parse(q)), canonical);
      assert.equal(print(parse(canonical)), canonical);
    });
  }

  for (const [q, message, position] of REJECTED) {
    it(`rejects ${JSON.stringify(q)} with "${message}" at ${position}`, () => {
      try {
        parse(q);
      } catch (e) {
        assert.ok(isSvcError(e), `not an SvcError: ${String(e)}`);
        assert.equal(e.code, 'invalid_query');
        assert.equal(e.message, message);
        assert.equal(e.details?.position, position);
        assert.equal(typeof e.details?.token, 'string');
        return;
      }
      assert.fail(`${JSON.stringify(q)} was accepted`);
    });
  }

  it('keeps terms case as written but ANDs implicitly', () => {
    const q = parse('Error FAILED');
    assert.deepEqual(q.search, { kind: 'and', items: [{ kind: 'term', text: 'Error' }, { kind: 'term', text: 'FAILED' }] });
  });

  it('binds AND tighter than OR', () => {
    assert.deepEqual(parse('a b OR c').search, {
      kind: 'or',
      items: [{ kind: 'and', items: [{ kind: 'term', text: 'a' }, { kind: 'term', text: 'b' }] }, { kind: 'term', text: 'c' }],
    });
  });
});
