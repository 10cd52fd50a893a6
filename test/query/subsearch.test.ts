import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import type { TestStorage } from '../storage/helpers.js';
import type { QueryService } from '../../src/query/service.js';
import { accessLine, REAL_LOGS, REAL_LOGS_PRESENT, realLines, storeSealedAndLive } from '../helpers/real-logs.js';
import { roundTrip } from './pipes/round-trip.js';

/**
 * Subsearches in the search part (query/subsearch.ts): the bracketed search runs first and its
 * rows become `(f="v" …) OR …`, as Splunk's implicit format makes them. Answers on the real Apache
 * log, stored sealed and live, checked against the test's own reading of the lines.
 */
describe('subsearches in the search part', () => {
  roundTrip({
    canonical: [
      'error NOT [search status=404 | stats count by clientip | fields clientip] | stats count',
      'x [| inputlookup users | fields uid]',
      '* | search NOT [search a | head 1 | fields host]',
      '[search a [search b | head 1 | fields host]]',
      'a [error]',
      '* | format',
      '* | format mvsep="||" maxresults=10 emptystr="none" "[" "(" "&&" ")" "||" "]"',
      '* | return clientip',
      '* | return 5 ip=clientip $host uri',
    ],
    canonicalized: [
      ['x [inputlookup users | fields uid]', 'x [| inputlookup users | fields uid]'],
      ['x [ search  a | fields host ]', 'x [search a | fields host]'],
      ['* | return 5 ip=clientip, $host, uri', '* | return 5 ip=clientip $host uri'],
    ],
    rejected: [
      ['a [search ]', "missing a query inside the subsearch's brackets", 2],
      ['a [search b', 'missing "]" closing the subsearch', 2],
      ['a [search b | nope]', 'unknown command "nope"', 14],
      [
        '* | format "(" "("',
        'format takes all six strings (row prefix, column prefix, column separator, column end, row separator, row end) or none, not 2',
        18,
      ],
      ['* | return', 'return takes at least one field', 10],
      ['* | return 0 x', 'unexpected "0": missing a count of rows (a positive integer)', 11],
    ],
  });

  if (!REAL_LOGS_PRESENT) {
    it('answers on the real logs (skipped: no real data; set SVC_REAL_DATA)', () => {});
    return;
  }
  const lines = realLines(REAL_LOGS.apache).map((l) => accessLine(l)!);
  const hits = new Map<string, number>();
  for (const a of lines) hits.set(a.clientip, (hits.get(a.clientip) ?? 0) + 1);
  const notFound = new Set(lines.filter((a) => a.status === '404').map((a) => a.clientip));

  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 10_000 });
  before(async () => ({ st, svc } = await storeSealedAndLive()));
  after(() => st.close());

  for (const index of ['apache_sealed', 'apache_live']) {
    it(`keeps the events of the clients a subsearch returns (${index})`, async () => {
      const r = await search(
        `index=${index} [search index=${index} status=404 | stats count by clientip | fields clientip] | stats count`,
      );
      const expect = lines.filter((a) => notFound.has(a.clientip)).length;
      assert.ok(expect > 0 && expect < lines.length);
      assert.deepEqual(r.rows, [[expect]]);
      const not = await search(
        `index=${index} NOT [search index=${index} status=404 | stats count by clientip | fields clientip] | stats count`,
      );
      assert.deepEqual(not.rows, [[lines.length - expect]]);
    });
  }

  it('ANDs the fields of a row and ORs the rows; the top clients by a sorted, headed subsearch', async () => {
    const top = [...hits].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    const r = await search(
      'index=apache_live [search index=apache_live | stats count by clientip | sort - count, clientip | head 3 | fields clientip] | stats count by clientip',
    );
    assert.deepEqual(
      r.rows,
      top.map(([ip, n]) => [ip, n]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    // two fields in a row: both must hold (status and method of each 404 row)
    const pairs = await search(
      'index=apache_sealed [search index=apache_sealed status=404 | stats count by method, status | fields method, status] | stats count',
    );
    const methods = new Set(lines.filter((a) => a.status === '404').map((a) => a.method));
    assert.deepEqual(pairs.rows, [[lines.filter((a) => a.status === '404' && methods.has(a.method)).length]]);
  });

  it('reads a "search" field as search text and skips fields starting with _', async () => {
    const r = await search(
      'index=apache_sealed [search index=apache_sealed status=404 | head 1 | eval search="status=404 OR status=500", _skip="x" | fields search, _skip] | stats count',
    );
    assert.deepEqual(r.rows, [[lines.filter((a) => a.status === '404' || a.status === '500').length]]);
  });

  it('matches nothing when the subsearch returns nothing, and everything under NOT', async () => {
    const none = await search(
      'index=apache_sealed [search index=apache_sealed nosuchwordanywhere | fields clientip] | stats count',
    );
    assert.deepEqual(none.rows, [[0]]);
    const all = await search(
      'index=apache_sealed NOT [search index=apache_sealed nosuchwordanywhere | fields clientip] | stats count',
    );
    assert.deepEqual(all.rows, [[lines.length]]);
  });

  it('runs a subsearch inside a later | search and inside another subsearch', async () => {
    const r = await search(
      'index=apache_live | stats count by clientip | search [search index=apache_live [search index=apache_live status=404 | fields clientip] | stats count by clientip | where count > 5 | fields clientip] | stats count',
    );
    const busy404 = [...notFound].filter((ip) => (hits.get(ip) ?? 0) > 5);
    assert.deepEqual(r.rows, [[busy404.length]]);
  });

  it('writes rows as search text with format and return, which a subsearch reads back', async () => {
    const top = [...hits].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    const ranked = 'index=apache_sealed | stats count by clientip | sort - count, clientip';
    const f = await search(`${ranked} | head 3 | format`);
    assert.deepEqual(f.columns, ['search']);
    assert.deepEqual(f.rows, [[`( ${top.map(([ip, n]) => `( clientip="${ip}" AND count="${n}" )`).join(' OR ')} )`]]);
    const custom = await search(`${ranked} | head 2 | fields clientip | format "[" "" "&&" "" "||" "]"`);
    assert.deepEqual(custom.rows, [[`[ clientip="${top[0][0]}" || clientip="${top[1][0]}" ]`]]);
    const empty = await search('index=apache_sealed nosuchwordanywhere | fields clientip | format');
    assert.deepEqual(empty.rows, [['NOT ( )']]);
    const r = await search(`${ranked} | return 2 ip=clientip`);
    assert.deepEqual(r.rows, [[`(ip="${top[0][0]}") OR (ip="${top[1][0]}")`]]);
    const v = await search(`${ranked} | return $clientip`);
    assert.deepEqual(v.rows, [[top[0][0]]]);
    // what a subsearch makes of them
    const three = new Set(top.map(([ip]) => ip));
    const expect = lines.filter((a) => three.has(a.clientip)).length;
    const viaFormat = await search(
      `index=apache_sealed [search ${ranked} | head 3 | fields clientip | format] | stats count`,
    );
    assert.deepEqual(viaFormat.rows, [[expect]]);
    const viaReturn = await search(`index=apache_sealed [search ${ranked} | return 3 clientip] | stats count`);
    assert.deepEqual(viaReturn.rows, [[expect]]);
    const none = await search(
      'index=apache_sealed NOT [search index=apache_sealed nosuchword | fields clientip | format] | stats count',
    );
    assert.deepEqual(none.rows, [[lines.length]]);
  });

  it('prints the subsearch back as written', () => {
    const q = 'error NOT [search status=404 | fields clientip]';
    assert.equal(print(parse(q)), q);
  });
});
