import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { groupFieldsOf, judge, parseThreshold, printThreshold } from '../../src/monitors/condition.js';
import type { SearchResult } from '../../src/query/types.js';

const meta = { matched: 0, scanned: 0, tookMs: 0 };
const table = (columns: string[], rows: unknown[][]): SearchResult => ({ events: [], columns, rows, meta });

describe('monitor conditions', () => {
  it('reads thresholds, quoted columns and = as ==', () => {
    assert.deepEqual(parseThreshold('count > 10'), { field: 'count', op: '>', value: 10 });
    assert.deepEqual(parseThreshold(' "p95 ms" >= 500.5 '), { field: 'p95 ms', op: '>=', value: 500.5 });
    assert.deepEqual(parseThreshold('errors = 0'), { field: 'errors', op: '==', value: 0 });
    assert.equal(printThreshold(parseThreshold('"p95 ms">=-1')), '"p95 ms" >= -1');
    for (const bad of ['', 'count', 'count > ten', '> 1', 'count >> 1'])
      assert.throws(() => parseThreshold(bad), /condition.threshold/, bad);
  });

  it('judges an event search by the events it matched', () => {
    assert.deepEqual(judge({ events: [], meta: { ...meta, matched: 3 } }, parseThreshold('count > 2'), []), [
      { group: '*', value: 3, triggered: true },
    ]);
    assert.throws(() => judge({ events: [], meta }, parseThreshold('avg > 2'), []), /not a table/);
  });

  it("judges a table row by row, by the query's groups", () => {
    const r = table(
      ['host', 'count'],
      [
        ['a', 5],
        ['b', 1],
        [null, 9],
      ],
    );
    assert.deepEqual(judge(r, parseThreshold('count > 2'), groupFieldsOf('* | stats count by host')), [
      { group: 'host=a', value: 5, triggered: true },
      { group: 'host=b', value: 1, triggered: false },
      { group: 'host=', value: 9, triggered: true },
    ]);
    assert.throws(() => judge(r, parseThreshold('p95 > 1'), ['host']), /lacks/);
    assert.throws(() => judge(r, parseThreshold('count > 1'), ['region']), /groupBy names "region"/);
  });

  it('sees silence as 0 and a value that is not a number as not triggering', () => {
    assert.deepEqual(judge(table(['count'], []), parseThreshold('count < 1'), []), [
      { group: '*', value: 0, triggered: true },
    ]);
    assert.deepEqual(judge(table(['x'], [['n/a']]), parseThreshold('x > 0'), []), [
      { group: '*', value: 0, triggered: false },
    ]);
  });

  it('takes the groups from the last stats of the query', () => {
    assert.deepEqual(groupFieldsOf('error | stats count by host, source | where count > 1'), ['host', 'source']);
    assert.deepEqual(groupFieldsOf('error'), []);
  });
});
