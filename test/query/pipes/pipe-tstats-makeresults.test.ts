import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../../../src/query/parser.js';
import { countOnlyStats, countOnlyTstatsByTime } from '../../../src/query/count-fast-path.js';
import { roundTrip } from './round-trip.js';

const NO_DATA_MODELS =
  'svc has no data models: tstats reads the events svc stores; give their filter after "where" (where index=web sourcetype=access)';
const TSTATS_LEADS = 'tstats starts a search ("| tstats count by host" with nothing before it)';
const MAKERESULTS_LEADS =
  'makeresults starts a search ("| makeresults" with nothing before it, or in [| makeresults …])';

describe('the tstats pipe', () => {
  roundTrip({
    canonical: [
      '| tstats count by host',
      '| tstats count where index=main by host',
      '| tstats count, dc(host) as hosts where index=main sourcetype=access_combined by _time, host span=1h',
      '| tstats summariesonly=t count by index',
      '| tstats summariesonly=true allow_old_summaries=true count by index',
      '| tstats prestats=f count by host',
      '| tstats summariesonly=t fillnull_value=null count by host, splunk_server',
      '| tstats fillnull_value="n/a" count by _time, host span=1h',
      '| tstats min(_time) as first, max(_time) as last, latest(_time), values(status) where status=404 OR status=500',
      '| tstats count where (status=404 OR status=500) method=GET by host',
      '| tstats count where error earliest=-24h by sourcetype',
      '| tstats count by _time span=10m | timechart span=10m sum(count)',
      '* | append [| tstats count by host]',
      '| tstats count where index=a by host | append [| makeresults | eval host="x"]',
    ],
    canonicalized: [
      [
        '| tstats count WHERE index="*" by splunk_server _time span=10m',
        '| tstats count where index="*" by splunk_server, _time span=10m',
      ],
      ['| tstats count groupby host, source', '| tstats count by host, source'],
      ['| tstats count by _time span=1h host', '| tstats count by _time, host span=1h'],
      ['| tstats count, latest(_time) AS last_seen by host', '| tstats count, latest(_time) as last_seen by host'],
      [
        '| tstats count where host IN (a, b) NOT TERM(x) by host',
        '| tstats count where (host=a OR host=b) NOT TERM(x) by host',
      ],
    ],
    rejected: [
      ['a | tstats count', TSTATS_LEADS, 4],
      ['| stats count | tstats count', TSTATS_LEADS, 16],
      ['| tstats count from datamodel=Endpoint.Processes by host', NO_DATA_MODELS, 15],
      ['| tstats count datamodel=X', NO_DATA_MODELS, 15],
      ['| tstats datamodel=X count', NO_DATA_MODELS, 9],
      [
        '| tstats prestats=true count by host',
        'tstats prestats=true makes rows only Splunk\'s timechart and stats read: drop it and aggregate in tstats ("| tstats count by _time span=1h")',
        9,
      ],
      [
        '| tstats count by _time',
        "tstats by _time needs span= (span=1h, 5m, 1d): svc does not guess Splunk's automatic span",
        15,
      ],
      [
        '| tstats count by host span=1h',
        'span= buckets _time: add _time to the by fields ("by _time, host span=1h")',
        23,
      ],
      ['| tstats count by _time span=1h span=5m', '"span" is given twice', 32],
      ['| tstats count by _time span=1x', 'unexpected "1x": missing a time span such as 1h, 5m or 1d', 29],
      ['| tstats count where by host', 'unexpected "by": missing a search expression after "where"', 21],
      ['| tstats count where', 'unexpected end of query: missing a search expression after "where"', 20],
      ['| tstats count by', 'missing a field after "by"', 17],
      ['| tstats count by host where index=a', 'tstats takes its where clause before "by"', 23],
      ['| tstats local=t count', 'tstats local= is not supported: svc runs on one node', 9],
      ['| tstats fillnull_value=a fillnull_value=b count', '"fillnull_value" is given twice', 26],
      ['| tstats summariesonly=maybe count', 'unexpected "maybe": missing true or false after "summariesonly="', 23],
      [
        '| tstats count(eval(x=1))',
        'tstats aggregates fields, not eval(): use "| stats count(eval(x = 1))" after a search',
        2,
      ],
      ['| tstats', 'unexpected end of query: missing an aggregation', 8],
    ],
  });

  it("makes its where the query's search part, so that time bounds and index narrowing apply", () => {
    const q = parse('| tstats count where index=web earliest=-1h by host');
    assert.deepEqual(q.search, parse('index=web earliest=-1h').search);
    assert.deepEqual(parse('| tstats count by host').search, parse('*').search);
  });

  it('is answered from the store counts where stats count by host or bin+stats by _time would be', () => {
    assert.deepEqual(countOnlyStats(parse('| tstats count where index=web by sourcetype')), {
      column: 'sourcetype',
      name: 'count',
    });
    assert.deepEqual(countOnlyStats(parse('index=web* | stats count as n by host')), { column: 'host', name: 'n' });
    assert.deepEqual(countOnlyTstatsByTime(parse('| tstats count as n where index=web by _time span=5m')), {
      span: '5m',
      name: 'n',
    });
    // a filter the counts cannot answer, or CASE(): the SQL path
    assert.equal(countOnlyStats(parse('| tstats count where index=web status=404 by host')), undefined);
    assert.equal(countOnlyStats(parse('| tstats count where index=CASE(Web) by host')), undefined);
    assert.equal(countOnlyTstatsByTime(parse('| tstats count by _time, host span=5m')), undefined);
    assert.equal(countOnlyTstatsByTime(parse('| tstats dc(host) by _time span=5m')), undefined);
  });
});

describe('the makeresults pipe', () => {
  roundTrip({
    canonical: [
      '| makeresults',
      '| makeresults count=3 annotate=true',
      '| makeresults | eval x=1',
      '* | append [| makeresults | eval index="Other"]',
    ],
    canonicalized: [
      ['|makeresults count=1', '| makeresults'],
      ['| makeresults annotate=f', '| makeresults'],
      ['| makeresults annotate=t count=5', '| makeresults count=5 annotate=true'],
    ],
    rejected: [
      ['x | makeresults', MAKERESULTS_LEADS, 4],
      ['| makeresults count=0', 'unexpected "0": missing a whole number from 1 after "count="', 20],
      ['| makeresults count=10001', 'makeresults makes at most 10000 rows, not 10001', 20],
      ['| makeresults splunk_server=local', 'makeresults splunk_server= is not supported: svc runs on one server', 14],
      ['| makeresults foo', 'unexpected "foo": makeresults takes count= and annotate=', 14],
      ['| makeresults count=2 count=3', '"count" is given twice', 22],
      ['| makeresults annotate=yes', 'unexpected "yes": missing true or false after "annotate="', 23],
    ],
  });
});
