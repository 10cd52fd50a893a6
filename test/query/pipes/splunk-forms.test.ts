import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

/**
 * The Splunk forms of issue 28 inside pipes: aggregations, quoted aliases and names, options after
 * the fields, eval functions and operators, rex max_match and mode=sed. Answers on real events are
 * in test/query/splunk-functions-real.test.ts.
 */
describe('Splunk aggregations', () => {
  roundTrip({
    canonical: [
      '* | stats latest(status), earliest(status), first(uri), last(uri), list(uri), latest_time(user), earliest_time(user) by host',
      '* | stats stdev(ms), stdevp(ms), var(ms), varp(ms), range(ms), mean(ms), mode(status), median(ms), perc95(ms), p99(ms)',
      '* | stats count(eval(status = 404)) as nf, sum(eval(if(status >= 500, 1, 0))) as errors by host',
      '* | stats count as "Total Events" by host',
      '* | stats values(*) as * by user',
      '* | stats max(*) as max_* by user',
      '* | stats values(new_*) as * by user',
      "* | stats sum('Duplicate Messages') as d",
      '* | eventstats latest(status) as last_status, list(uri) as uris by host',
      '* | streamstats window=5 first(status) as f',
      '* | timechart span=1h per_second(bytes) as bps, per_minute(bytes), per_hour(bytes), per_day(bytes)',
      '* | chart latest(status) over host by method',
    ],
    canonicalized: [
      ['* | stats count AS "x y" by host', '* | stats count as "x y" by host'],
      ["* | stats count as 'a b'", '* | stats count as "a b"'],
      ['* | stats count(eval(x="y"))', '* | stats count(eval(x = "y"))'],
      ['* | STATS LATEST(x) AS y', '* | stats latest(x) as y'],
      ['* | stats sum("Duplicate Messages") as d', "* | stats sum('Duplicate Messages') as d"],
    ],
    rejected: [
      ['a | stats per_second(x)', '"per_second" is only valid in timechart', 10],
      [
        'a | stats values(*) as x',
        '"values(*)" makes one column per field: name them with a "*" in the alias ("as *")',
        10,
      ],
      ['a | stats count as x*', '"*" in the alias "x*" stands for a field\'s name: use it with "count(*)"', 10],
      ['a | timechart values(*) as *', 'cannot aggregate every field ("*") here: only stats and eventstats can', 21],
      [
        'a | chart values(new_*) over x',
        'cannot aggregate fields by a pattern ("new_*") here: only stats and eventstats can',
        17,
      ],
      ['a | stats count(eval x)', 'unexpected "x": missing "(" right after "eval"', 21],
      ['a | stats count as ""', 'missing text inside the name ""', 19],
      [
        'a | stats bogus(x)',
        'unexpected "bogus": missing an aggregation (count, sum, avg, min, max, dc, values, latest, p95, …)',
        10,
      ],
    ],
  });
});

describe('Splunk names and options inside pipes', () => {
  roundTrip({
    canonical: [
      "* | eval 'a b'=1",
      '* | sort 5 -count',
      '* | timechart span=1h limit=5 useother=false count by host',
      '* | timechart limit=0 usenull=false count by host',
      '* | timechart minspan=2m max(ms)',
    ],
    canonicalized: [
      ['* | eval "event_time"=strftime(_time, "%F %T")', '* | eval event_time=strftime(_time, "%F %T")'],
      ['* | eval "a b" = 1', "* | eval 'a b'=1"],
      ['* | rename a AS "A b"', '* | rename a as "A b"'],
      ['* | sort - count', '* | sort -count'],
      ['* | sort - count, + host', '* | sort -count, host'],
      ['* | sort 0 - x', '* | sort -x'],
      ['* | sort limit=5 x', '* | sort 5 x'],
      ['* | sort 100 + datamodel', '* | sort 100 datamodel'],
      ['* | sort Results desc', '* | sort -Results'],
      ['* | sort -count desc', '* | sort count'],
      ['* | top uri limit=5', '* | top 5 uri'],
      ['* | top uri by host limit=5', '* | top 5 uri by host'],
      ['* | rare limit=2 uri', '* | rare 2 uri'],
      ['* | fillnull a b value=X', '* | fillnull value="X" a, b'],
      ['* | fillnull user value="n/a"', '* | fillnull value="n/a" user'],
      ['* | timechart count by host useother=f limit=5', '* | timechart limit=5 useother=false count by host'],
      ['* | timechart count span=5m', '* | timechart span=5m count'],
      ['* | bin _time span=10m', '* | bin span=10m _time'],
      ['* | bucket _time span=1h as t', '* | bin span=1h _time as t'],
      ['* | rename "All_Changes".* AS *', '* | rename All_Changes.* as *'],
      ['* | eval a=1 ``` a comment ``` | stats count ```and another```', '* | eval a=1 | stats count'],
      ['error ```why``` host=x', 'error host=x'],
    ],
    rejected: [
      ['a | sort -', 'unexpected "-": missing a field to sort by after the sign', 9],
      ['a | sort - -count', 'unexpected "-": a second sign before "count"', 9],
      ['a | top 3 uri limit=5', '"limit" is given twice', 14],
      ['a | fillnull value=1 a value=2', '"value" is given twice', 23],
      ['a | timechart span=1m count span=5m', '"span" is given twice', 28],
      ['a | eval ""=1', 'missing text inside the field name ""', 9],
      ['a | bin span=1h _time span=5m', '"span" is given twice', 22],
      ['a | where x=1 ```unclosed', 'missing closing ``` for the comment starting at position 14', 14],
      ['a | table "a"b', 'unexpected "b": missing a space or comma before it', 13],
    ],
  });
});

describe('Splunk eval functions and operators', () => {
  roundTrip({
    canonical: [
      '* | eval a=true(), b=null(), c=false()',
      '* | where _time > relative_time(now(), "-70m@m")',
      '* | eval s=tostring(bytes, "commas"), h=tostring(bytes, "hex"), d=tostring(secs, "duration")',
      '* | eval p=mvindex(split(uri, "/"), 1), n=mvcount(x), j=mvjoin(x, ", "), f=mvfilter(NOT match(x, "\\$"))',
      '* | eval all=mvappend(a, b), u=mvdedup(x), i=mvfind(x, "^a"), z=mvzip(a, b, "=")',
      '* | where cidrmatch("10.0.0.0/8", src) AND in(status, 404, 500)',
      '* | eval t=strftime(_time, "%F %T %+ %3N")',
      '* | eval h=md5(message), s=sha256(message), u=urldecode(uri)',
      '* | eval d=trim(domain, "*"), l=ltrim(x, "0"), r=rtrim(x)',
      '* | eval low=mvmap(users, lower(users))',
    ],
    canonicalized: [
      ['* | eval combined=a."-".b', '* | eval combined=a . "-" . b'],
      ['* | eval combined=max_size_kb."-".current_size_kb', '* | eval combined=max_size_kb . "-" . current_size_kb'],
      ['* | eval x=a.b', '* | eval x=a.b'],
      ['* | where NOT new_ace IN ("a", "b")', '* | where NOT in(new_ace, "a", "b")'],
      // Splunk's eval and where take the boolean operators in any case (its own detections use them)
      ['* | where failures >= 5 and methods >= 1', '* | where failures >= 5 AND methods >= 1'],
      ['* | eval s=if(a==1 or b=="t", 1, 0)', '* | eval s=if(a = 1 OR b = "t", 1, 0)'],
      ['* | where not source_domain="x" and dest="y"', '* | where NOT source_domain = "x" AND dest = "y"'],
      ['* | where not=1', '* | where not = 1'],
      ["* | where 'and'=1", '* | where and = 1'],
      ['* | where status in (404, 500) AND x=1', '* | where in(status, 404, 500) AND x = 1'],
      ['* | where uri LIKE "/api%" AND x=1', '* | where like(uri, "/api%") AND x = 1'],
      ['* | where LIKE (process_exec, "%find%")', '* | where like(process_exec, "%find%")'],
    ],
    rejected: [
      ['a | eval t=true(1)', 'function "true" takes 0 arguments, not 1', 11],
      ['a | where x IN ()', 'unexpected ")": missing a value, field or function', 16],
      ['a | where x IN 1', 'unexpected "1": missing "("', 15],
    ],
  });
});

describe('rex max_match and mode=sed', () => {
  roundTrip({
    canonical: [
      '* | rex field=dn max_match=0 ",DC=(?<domain>[^,]+)"',
      '* | rex field=uri mode=sed "s/\\//_/g"',
      '* | rex mode=sed "s/(a)(b)/\\2\\1/"',
      '* | rex "(?s), search=(?P<search>.*)$"',
    ],
    canonicalized: [
      ['* | rex max_match=0 field=dn ",DC=(?<domain>[^,]+)"', '* | rex field=dn max_match=0 ",DC=(?<domain>[^,]+)"'],
      ['* | rex max_match=1 "(?<a>x)"', '* | rex "(?<a>x)"'],
      ['* | rex field=b "(?<a>.{8})" max_match=0', '* | rex field=b max_match=0 "(?<a>.{8})"'],
      ['* | rex field="search" "(?<a>x)"', '* | rex field=search "(?<a>x)"'],
      ['* | rex field="a b" "(?<a>x)"', '* | rex field=\'a b\' "(?<a>x)"'],
    ],
    rejected: [
      [
        'a | rex mode=sed "y/a/b/"',
        'cannot use the sed expression "y/a/b/": transliteration (y/…/…/) is not supported',
        17,
      ],
      [
        'a | rex mode=sed "s/a/b/2"',
        'cannot use the sed expression "s/a/b/2": unknown flags "2": only g (every match) is supported',
        17,
      ],
      ['a | rex mode=sed "s/a/b"', 'cannot use the sed expression "s/a/b": want s/<regex>/<replacement>/[g]', 17],
      ['a | rex mode=foo "x"', 'unexpected "foo": rex takes only mode=sed', 13],
      ['a | rex max_match=2 mode=sed "s/a/b/"', 'rex takes max_match or mode=sed, not both', 29],
    ],
  });
});
