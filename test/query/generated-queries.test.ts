import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import type { LogEvent } from '../../src/events/event.js';
import type { LookupCatalog } from '../../src/query/lookup-catalog.js';

/**
 * Generated queries (fast-check, fixed seeds) over the real store: every query either answers (search, histogram, fields) or is
 * rejected as the caller's error (400 with a message); none reaches DuckDB as SQL it cannot run
 * (a 500). The pieces are chosen to collide: output names equal to input names, fields that do
 * not exist, numbers out of range, invalid regexes and formats, pipes that drop `_time`.
 */
const T0 = Date.UTC(2024, 4, 1);
const EVENTS: LogEvent[] = Array.from({ length: 200 }, (_, i) => ({
  timeUs: (T0 + i * 60_000) * 1000,
  env: 'default',
  index: i % 2 ? 'web' : 'app',
  host: `web-${i % 3}`,
  source: 's',
  sourcetype: 't',
  message:
    ['Error disk full 10.0.0.1', 'user bob logged in', 'GET /x 200 took 15ms', 'weird "quote" \\ back'][i % 4] +
    ` #${i}`,
  fields: {
    code: String([200, 404, 500][i % 3]),
    n: i,
    ratio: i / 7,
    ok: i % 2 === 0,
    ...(i % 5 ? {} : { user: 'alice' }),
  },
}));

const field = fc.constantFrom(
  'host',
  'code',
  'n',
  'ratio',
  'ok',
  'user',
  'message',
  'index',
  '_time',
  'nosuch',
  'id.x',
  '"a b"',
  'count',
  'source',
  'percent',
  'env',
  'g',
  '__ord',
  '__bucket',
  '_extra',
  'host*',
  '*',
  'env_user',
);
const word = fc.constantFrom(
  'error',
  'ERROR',
  'disk',
  '10.0.0.1',
  'bob',
  'x',
  '*',
  'err*',
  '*ror',
  '"disk full"',
  '"',
  "o'brien",
  '\\',
  '200',
  '-1',
  '1e400',
  '()',
  'NOT',
  'OR',
  'AND',
  'by',
  'as',
  '=',
  '|',
  ',',
  '""',
  '" "',
  'é',
);
const value = fc.oneof(
  word,
  fc.constantFrom('0', '-5', '3.5', '99999999999999999999', 'web-*', 'now', '-1h', '@d', 'abc'),
);
const cmp = fc.constantFrom('=', ':', '!=', '>', '>=', '<', '<=');
const num = fc.constantFrom('0', '1', '-1', '2.5', '1e308', '1e400', '99999999999999999999', 'n', 'ratio');
const str = fc.constantFrom(
  '"x"',
  '"(?<host>\\\\w+)"',
  '"(?<count>.)"',
  '"(?<n>\\\\d+) (?<m>x)?"',
  '"\\\\"',
  '"("',
  '"["',
  '"%Q"',
  '"%Y-%m-%d"',
  '"(?<g>\\\\d+)"',
  '""',
  'message',
  'host',
  'code',
);
const fn = fc.constantFrom(
  'lower',
  'upper',
  'len',
  'abs',
  'floor',
  'ceil',
  'sqrt',
  'ln',
  'exp',
  'log',
  'pow',
  'round',
  'tonumber',
  'tostring',
  'isnull',
  'isnum',
  'if',
  'case',
  'coalesce',
  'concat',
  'substr',
  'replace',
  'match',
  'like',
  'min',
  'max',
  'now',
  'strftime',
  'strptime',
  'nosuchfn',
);
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small' },
    num,
    str,
    field,
    fc
      .tuple(tie('e'), fc.constantFrom('+', '-', '*', '/', '%', '.', '=', '==', '!=', '<', '>=', 'AND', 'OR'), tie('e'))
      .map(([a, o, b]) => `${a} ${o} ${b}`),
    fc.tuple(fn, fc.array(tie('e'), { maxLength: 3 })).map(([f, a]) => `${f}(${a.join(', ')})`),
    tie('e').map((a) => `NOT ${a}`),
    tie('e').map((a) => `(${a})`),
  ),
})).e;
const agg = fc.oneof(
  fc.constant('count'),
  fc
    .tuple(fc.constantFrom('sum', 'avg', 'min', 'max', 'dc', 'values', 'p50', 'p95', 'p99', 'median', 'count'), field)
    .map(([a, f]) => `${a}(${f})`),
);
const aggAs = fc.tuple(agg, fc.option(field)).map(([a, f]) => (f ? `${a} as ${f}` : a));
const fields = fc.array(field, { minLength: 1, maxLength: 3 }).map((a) => a.join(', '));
const pipe = fc.oneof(
  fc
    .tuple(fc.array(aggAs, { minLength: 1, maxLength: 3 }), fc.option(fields))
    .map(([a, b]) => `stats ${a.join(', ')}${b ? ` by ${b}` : ''}`),
  fc
    .tuple(fc.constantFrom('1m', '1h', '5s', '0m', '1d', '100000d', '7x'), agg, fc.option(field))
    .map(([s, a, b]) => `timechart span=${s} ${a}${b ? ` by ${b}` : ''}`),
  expr.map((e) => `where ${e}`),
  fc.tuple(field, expr).map(([f, e]) => `eval ${f} = ${e}`),
  fc.tuple(fc.option(field), str).map(([f, s]) => `rex ${f ? `field=${f} ` : ''}${s}`),
  fields.map((f) => `fields ${f}`),
  fields.map((f) => `fields - ${f}`),
  fields.map((f) => `table ${f}`),
  fc
    .tuple(fc.constantFrom('', '-', '+'), field, fc.option(fc.constantFrom('0', '5', '-1')))
    .map(([s, f, n]) => `sort ${n ?? ''} ${s}${f}`),
  fc.constantFrom('head', 'tail', 'head 0', 'head 3', 'tail 2', 'head -1', 'head 1e9', 'head 99999999999999999999'),
  fc
    .tuple(fc.constantFrom('top', 'rare'), fc.option(fc.constantFrom('limit=2 ', 'limit=0 ', 'limit=x ')), field)
    .map(([t, l, f]) => `${t} ${l ?? ''}${f}`),
  fields.map((f) => `dedup ${f}`),
  fc
    .array(fc.tuple(field, field), { minLength: 1, maxLength: 3 })
    .map((ps) => `rename ${ps.map(([a, b]) => `${a} as ${b}`).join(', ')}`),
  fc
    .tuple(fc.option(fc.constantFrom('1h', '5m', '100', '0.5', '0', 'x')), field, fc.option(field))
    .map(([s, f, a]) => `bin ${s ? `span=${s} ` : ''}${f}${a ? ` as ${a}` : ''}`),
  fc
    .tuple(fc.array(aggAs, { minLength: 1, maxLength: 3 }), fc.option(fields))
    .map(([a, b]) => `eventstats ${a.join(', ')}${b ? ` by ${b}` : ''}`),
  fc
    .tuple(fc.option(fc.constantFrom('0', '-1', '"n/a"', 'x', '""')), fc.option(fields))
    .map(([v, f]) => `fillnull${v ? ` value=${v}` : ''}${f ? ` ${f}` : ''}`),
  fc.constantFrom('fieldsummary', 'fieldsummary maxvals=1', 'fieldsummary maxvals=0', 'fieldsummary maxvals=x'),
  fc
    .tuple(
      fc.option(
        fc.constantFrom(
          'window=3',
          'window=0',
          'window=1 current=false',
          'global=false window=2',
          'current=f',
          'window=x',
        ),
      ),
      fc.array(aggAs, { minLength: 1, maxLength: 2 }),
      fc.option(fields),
    )
    .map(([o, a, b]) => `streamstats ${o ? `${o} ` : ''}${a.join(', ')}${b ? ` by ${b}` : ''}`),
  fc
    .tuple(
      fc.option(fc.constantFrom('limit=1', 'limit=0', 'usenull=false', 'useother=f limit=2', 'limit=x')),
      fc.array(aggAs, { minLength: 1, maxLength: 2 }),
      field,
      fc.option(field),
      fc.boolean(),
    )
    .map(
      ([o, a, x, y, over]) =>
        `chart ${o ? `${o} ` : ''}${a.join(', ')} ${over ? `over ${x}${y ? ` by ${y}` : ''}` : `by ${x}${y ? `, ${y}` : ''}`}`,
    ),
  fc
    .tuple(
      fc.option(fields),
      fc.array(
        fc.constantFrom(
          'maxspan=5m',
          'maxpause=1m',
          'maxspan=1s',
          'startswith=error',
          'endswith="disk full"',
          'startswith=*',
          'endswith=x*',
          'maxspan=x',
          'startswith=""',
        ),
        { maxLength: 2 },
      ),
    )
    .map(([f, o]) => ['transaction', f ?? '', ...o].filter(Boolean).join(' ')),
  fc
    .tuple(
      fc.constantFrom('codes', 'nosuch'),
      fc.array(fc.tuple(fc.constantFrom('code', 'text', 'x', '"a b"'), fc.option(field)), {
        minLength: 1,
        maxLength: 2,
      }),
      fc.option(fc.tuple(fc.constantFrom('output', 'outputnew'), fields)),
    )
    .map(
      ([t, m, o]) =>
        `lookup ${t} ${m.map(([c, f]) => (f ? `${c} as ${f}` : c)).join(', ')}${o ? ` ${o[0]} ${o[1]}` : ''}`,
    ),
  fc
    .tuple(
      fc.option(fc.constantFrom('input=message ', 'input=x ', 'output=y ', 'input=doc output=o ')),
      fc.option(fc.constantFrom('a', 'a.b', 'list{}', 'list{2}.x', '"a b"', 'path=x.y')),
    )
    .map(([o, p]) => `spath ${o ?? ''}${p ?? ''}`),
  fc
    .tuple(
      fc.constantFrom('', 'search ', 'search index=main '),
      fc.option(word),
      fc.constantFrom(
        '',
        ' | stats count',
        ' | stats count by host',
        ' | head 2',
        ' | table host, x',
        ' | append [search y]',
        ']',
      ),
    )
    .map(([s, w, p]) => `append [${s}${w ?? ''}${p}]`),
  fc.tuple(fc.constantFrom('kv', 'logfmt'), fc.option(field)).map(([k, f]) => `${k}${f ? ` field=${f}` : ''}`),
  fc
    .tuple(
      fc.option(field),
      fc.constantFrom('"<a> <b>"', '"x=<x>;"', '"<_> \\"<m> <u>\\" <s>"', '"<a>"', '"abc"', '"<a><b>"'),
    )
    .map(([f, p]) => `extract ${f ? `field=${f} ` : ''}${p}`),
  fc
    .tuple(fc.option(fields), fc.option(fc.constantFrom('limit=1', 'limit=0', 'limit=x')), fc.option(field))
    .map(([b, l, f]) => ['patterns', b ? `by ${b}` : '', l ?? '', f ? `field=${f}` : ''].filter(Boolean).join(' ')),
  word,
);
const search = fc
  .array(
    fc.oneof(
      word,
      fc.tuple(field, cmp, value).map(([f, c, v]) => `${f}${c}${v}`),
      fc.constantFrom(
        'earliest=-1d',
        'latest=now',
        'earliest=2024-05-01T00:00:00Z',
        'earliest=-99999999999y',
        'earliest=garbage',
        '-error',
        'NOT',
        '(',
        ')',
      ),
    ),
    { maxLength: 5 },
  )
  .map((a) => a.join(' '));
/** One lookup table, `codes` (code, text, "a b", x), as an inline relation: the compiler's side of the catalog contract. */
const LOOKUPS: LookupCatalog = {
  table: (name) =>
    name !== 'codes'
      ? undefined
      : {
          name,
          relation:
            "(VALUES (0, '200', 'ok', NULL, 'a'), (1, '404', 'missing', 'q', NULL), (2, '200', 'dup', NULL, NULL)) AS t(r, c0, c1, c2, c3)",
          columns: ['code', 'text', 'a b', 'x'].map((n, i) => ({ name: n, sql: `c${i}` })),
          rowSql: 'r',
        },
};
const query = (pipes: number) =>
  fc.tuple(search, fc.array(pipe, { maxLength: pipes })).map(([s, p]) => [s, ...p].join(' | '));

describe('generated queries', () => {
  let st: TestStorage;
  let svc: QueryService;

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock, lookups: LOOKUPS });
    await st.engine.writer.write(EVENTS.slice(0, 100), { wait: true });
    await st.engine.flush(); // blocks and live events both in every answer
    await st.engine.writer.write(EVENTS.slice(100), { wait: true });
  });
  after(async () => {
    await st.close();
  });

  for (const [seed, pipes] of [
    [1, 3],
    [2, 5],
  ] as const) {
    it(`answer or reject as the caller's error, never fail inside (seed ${seed}, up to ${pipes} pipes)`, async () => {
      let answered = 0;
      await fc.assert(
        fc.asyncProperty(query(pipes), async (q) => {
          const calls: [string, () => Promise<unknown>][] = [
            ['search', () => svc.search(SYSTEM_PRINCIPAL, { q, limit: 5 })],
            ['histogram', () => svc.histogram(SYSTEM_PRINCIPAL, { q, buckets: 10 })],
            ['fields', () => svc.fields(SYSTEM_PRINCIPAL, { q })],
          ];
          for (const [name, call] of calls) {
            try {
              await call();
              if (name === 'search') answered++;
            } catch (e) {
              if (!isSvcError(e) || e.kind !== 'bad_request')
                throw new Error(`${name}: ${q}\n→ ${(e as Error).message.split('\n')[0]}`, { cause: e });
              assert.ok(e.message.length > 0);
            }
          }
        }),
        { numRuns: 800, seed },
      );
      assert.ok(answered > 50, `only ${answered} of 800 generated queries were accepted: the generator lost its reach`);
    });
  }

  it('every generated query that parses prints to a query that parses to the same print', () => {
    fc.assert(
      fc.property(query(5), (q) => {
        let printed: string;
        try {
          printed = print(parse(q));
        } catch (e) {
          if (isSvcError(e) && e.kind === 'bad_request') return;
          throw e;
        }
        assert.equal(print(parse(printed)), printed, `from ${q}`);
      }),
      { numRuns: 3000, seed: 3 },
    );
  });

  it('rejects what it cannot compile or run with a 400 that says why', async () => {
    const cases: [string, RegExp][] = [
      ['* | stats count as host by host', /^stats: "host" would name two columns/],
      ['* | top count', /^top: "count" would name two columns/],
      ['* | rare host, host', /^rare: "host" would name two columns/],
      ['* | timechart span=1m count by _time', /^timechart: "_time" would name two columns/],
      ['* | table host | timechart count', /^timechart: needs the event time _time/],
      ['* | stats count by host | timechart count', /^timechart: needs the event time _time/],
      ['* | eval _time = n > 3', /^eval: _time takes a time, epoch seconds or a time text, not a boolean/],
      ['* | table host | fields - host', /^fields: no field would be left/],
      ['* | rename host* as *', /^rename: "host\* as \*" would leave "host" without a name/],
      ['* | head 99999999999999999999', /is too large for a row count/],
      ['* | chart count over host by host', /^chart: "host" would name two columns/],
      ['* | transaction message', /^transaction: "message" would name two columns/],
      ['* | table host | transaction host', /^transaction: needs the event time _time/],
      ['* | streamstats count as host by host', /^streamstats: "host" would name two columns/],
      ['* | lookup nosuch code', /^lookup: unknown lookup table "nosuch"/],
      ['* | lookup codes nope', /^lookup: table "codes" has no column "nope"/],
      ['* | patterns by count', /^patterns: "count" would name two columns/],
      ['* | where n > 1e400', /"1e400" is out of range for a number/],
      ['earliest=-99999999999y', /is out of range \(years 1 to 9999\)/],
      ['* | where match(message, "(")', /^the query cannot run: Invalid Input Error: /],
      ['* | eval t = strftime(_time, "%Q")', /^the query cannot run: Invalid Input Error: /],
    ];
    for (const [q, re] of cases) {
      await assert.rejects(
        svc.search(SYSTEM_PRINCIPAL, { q }),
        (e: unknown) => isSvcError(e) && e.kind === 'bad_request' && re.test(e.message),
        q,
      );
    }
  });

  it('gives null where a function is out of its domain instead of failing the search', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, {
      q: '* | eval a = ln(n), b = sqrt(n - 100), c = substr(message, 1e20) | stats count(a) as a, count(b) as b, count(c) as c',
    });
    // ln(0) and sqrt of a negative are null; n runs 0..199
    assert.deepEqual(r.rows, [[199, 100, 0]]);
  });

  it('eval _time takes epoch seconds and time text, and timechart buckets by it', async () => {
    const secs = Date.UTC(2030, 0, 1) / 1000;
    const r = await svc.search(SYSTEM_PRINCIPAL, {
      q: `* | eval _time = ${secs} + n * 3600 | timechart span=1d count`,
    });
    // 200 hours from 2030-01-01: days of 24, the last with 200 - 8 * 24 = 8
    assert.deepEqual(
      r.rows!.map((x) => x[1]),
      [24, 24, 24, 24, 24, 24, 24, 24, 8],
    );
    assert.equal(r.rows![0][0], '2030-01-01T00:00:00.000000Z');
    const t = await svc.search(SYSTEM_PRINCIPAL, {
      q: '* | eval _time = "2031-02-03 04:05:06" | stats min(_time) as t',
    });
    assert.deepEqual(t.rows, [['2031-02-03T04:05:06.000000Z']]);
  });
});
