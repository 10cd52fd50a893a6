import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestStorage } from '../storage/helpers.js';
import {
  accessLine,
  REAL_DATA,
  REAL_LOGS,
  REAL_LOGS_PRESENT,
  realLines,
  storeSealedAndLive,
  type AccessLine,
} from '../helpers/real-logs.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';

/**
 * Splunk's commands that hold a pipeline or searches in brackets (issue 28): appendpipe, foreach,
 * multisearch and appendcols, over the real Apache access log and OpenSSH log, each stored sealed
 * into blocks and live (read by different code; both answers must agree). Every answer is checked
 * against this test's own reading of the raw lines (helpers/real-logs.ts's regex, never svc's).
 */
const present = REAL_LOGS_PRESENT;
if (!present) console.log(`# skipping the bracketed-pipeline tests on real logs: no real data at ${REAL_DATA}`);

type Cell = unknown;
/** A cell as the test compares it: numbers (or numeric text) as numbers rounded to 10 digits, lists cell by cell. */
function norm(v: Cell): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(norm);
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)))
    return Number(Number(v).toPrecision(10));
  return v;
}
const normRows = (rows: Cell[][]) => rows.map((r) => r.map(norm));
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

function countBy<T>(xs: T[], key: (x: T) => string | undefined): [string, number][] {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = key(x);
    if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].sort(([a], [b]) => cmp(a, b));
}

describe('appendpipe, foreach, multisearch and appendcols on real logs', { skip: !present }, () => {
  let st: TestStorage;
  let svc: QueryService;
  const apache: AccessLine[] = present ? realLines(REAL_LOGS.apache).map((l) => accessLine(l)!) : [];
  const ssh = present ? realLines(REAL_LOGS.ssh) : [];
  const bytesOf = (a: AccessLine) => (/^\d+$/.test(a.bytes) ? Number(a.bytes) : undefined);

  /** The query over the sealed and the live copies (`$s` is `sealed` or `live`); both answers must agree. */
  async function both(q: string): Promise<{ columns: string[]; rows: Cell[][] }> {
    const out = [];
    for (const s of ['sealed', 'live']) {
      const r = await svc.search(SYSTEM_PRINCIPAL, { q: q.replaceAll('$s', s), limit: 10_000 });
      out.push({ columns: r.columns ?? [], rows: normRows(r.rows ?? []) });
    }
    assert.deepEqual(out[1], out[0], `${q}: the live copy answers like the sealed one`);
    return out[0];
  }

  before(async () => {
    assert.ok(apache.every((a) => a !== undefined));
    ({ st, svc } = await storeSealedAndLive());
  });
  after(() => st?.close());

  it('appendpipe adds subtotals after the rows they sum', async () => {
    const pairs = countBy(apache, (a) => (a.method === undefined ? undefined : `${a.method}\u0000${a.status}`)).map(
      ([k, n]) => [...k.split('\u0000'), n] as [string, string, number],
    );
    const totals = new Map<string, number>();
    for (const [m, , n] of pairs) totals.set(m, (totals.get(m) ?? 0) + n);
    assert.ok(pairs.length > 5 && totals.size > 1);
    const r = await both(
      'index=apache_$s | stats count by method, status | appendpipe [stats sum(count) as count by method]',
    );
    assert.deepEqual(r.columns, ['method', 'status', 'count']);
    assert.deepEqual(
      r.rows,
      normRows([...pairs, ...[...totals].sort(([a], [b]) => cmp(a, b)).map(([m, n]) => [m, null, n])]),
    );
  });

  it('appendpipe [stats count | where count==0] adds a row only when there is none', async () => {
    const none = await both(
      'index=apache_$s status=999 | stats count by host | appendpipe [stats count | where count==0]',
    );
    assert.deepEqual(none.rows, [[null, 0]]);
    const some = await both(
      'index=apache_$s status=404 | stats count by host | appendpipe [stats count | where count==0]',
    );
    assert.deepEqual(some.rows, [['h', apache.filter((a) => a.status === '404').length]]);
  });

  it('appendpipe runs over the rows before it, after a where and an eval of its own', async () => {
    const big = countBy(apache, (a) => a.clientip).filter(([, n]) => n >= 50);
    assert.ok(big.length > 0);
    const r = await both(
      'index=apache_$s | stats count by clientip | appendpipe [where count >= 50 | eval clientip="busy " . clientip] | where count >= 50',
    );
    assert.deepEqual(r.rows, normRows([...big, ...big.map(([ip, n]) => [`busy ${ip}`, n])]));
  });

  it('foreach rounds each matching column of a stats table, <<FIELD>> and <<MATCHSTR>> replaced', async () => {
    const by = new Map<string, number[]>();
    for (const a of apache)
      by.set(a.status, [...(by.get(a.status) ?? []), ...[bytesOf(a)].filter((b) => b !== undefined)]);
    // a status whose lines all have "-" for bytes keeps its row, without averages (as Splunk's stats)
    const expect = [...by]
      .sort(([a], [b]) => cmp(a, b))
      .map(([s, xs]) =>
        xs.length === 0
          ? [s, null, null, 'avg', 'max']
          : [s, round(sum(xs) / xs.length / 1024, 1), round(Math.max(...xs) / 1024, 1), 'avg', 'max'],
      );
    assert.ok(expect.some((r) => r[1] === null));
    const r = await both(
      'index=apache_$s | stats avg(bytes) as avg_bytes, max(bytes) as max_bytes by status ' +
        '| foreach *_bytes [eval <<FIELD>>=round(<<FIELD>> / 1024, 1), label_<<MATCHSTR>>="<<MATCHSTR>>"]',
    );
    assert.deepEqual(r.columns, ['status', 'avg_bytes', 'max_bytes', 'label_avg', 'label_max']);
    assert.deepEqual(r.rows, normRows(expect));
  });

  it('foreach runs for the fields some row has a value for, in the order of their names', async () => {
    // e_999 has no value in any row, so it is not one of the results' fields (Splunk's foreach never sees it)
    const n404 = apache.filter((a) => a.status === '404').length;
    const n304 = apache.filter((a) => a.status === '304').length;
    assert.ok(n404 > 0 && n304 > 0);
    const r = await both(
      'index=apache_$s | eval e_404=if(status=404, 1, null()), e_304=if(status=304, 1, null()), e_999=if(status=999, 1, null()) ' +
        '| foreach e_* [eval seen=mvappend(seen, "<<MATCHSEG1>>"), hits=coalesce(hits, 0) + coalesce(<<FIELD>>, 0)] ' +
        '| stats count, sum(hits) as hits by seen',
    );
    // every event gets both names, the fields' values only where it has them
    assert.deepEqual(
      r.rows,
      normRows([
        ['304', apache.length, n404 + n304],
        ['404', apache.length, n404 + n304],
      ]),
    );
    const order = await both(
      'index=apache_$s status=404 | head 1 | eval z_b=1, z_a=2, z_c=3 | foreach z_* [eval names=mvappend(names, "<<FIELD>>")] | table names',
    );
    assert.deepEqual(order.rows, [[['z_a', 'z_b', 'z_c']]]);
  });

  it('foreach templates read fields found in the message that no other pipe names', async () => {
    const r = await both(
      'index=apache_$s status=404 | eval e_a=1 | foreach e_* [eval m_<<MATCHSTR>>=method] | stats count by m_a',
    );
    const expect = countBy(
      apache.filter((a) => a.status === '404'),
      (a) => a.method,
    );
    assert.ok(expect.length > 1);
    assert.deepEqual(r.rows, expect);
  });

  it('multisearch gives the events of both searches, newest first, an event both match twice', async () => {
    const n404 = apache.filter((a) => a.status === '404').length;
    const failed = ssh.filter((l) => l.toLowerCase().includes('failed password')).length;
    assert.ok(n404 > 0 && failed > 0);
    const kinds = await both(
      '| multisearch [search index=apache_$s status=404 | eval kind="not found"] [search index=ssh_$s "Failed password" | eval kind="ssh"] | stats count by kind',
    );
    assert.deepEqual(kinds.rows, [
      ['not found', n404],
      ['ssh', failed],
    ]);
    // the pipes after it read fields found in the message (method), which neither search names
    const methods = await both(
      '| multisearch [search index=apache_$s status=404] [search index=apache_$s status>=400] | stats count by method',
    );
    const errs = apache.filter((a) => Number(a.status) >= 400);
    assert.deepEqual(
      methods.rows,
      countBy([...apache.filter((a) => a.status === '404'), ...errs], (a) => a.method),
    );
    const events = await svc.search(SYSTEM_PRINCIPAL, {
      q: '| multisearch [search index=apache_sealed status=404] [search index=ssh_live "Failed password"]',
      limit: 10_000,
    });
    const times = (events.events ?? []).map((e) => Date.parse(e.time));
    assert.equal(times.length, n404 + failed);
    assert.ok(
      times.every((t, i) => i === 0 || times[i - 1] >= t),
      'newest first',
    );
  });

  it('appendcols pairs the subsearch rows with the rows in order, its extra rows on their own', async () => {
    const statuses = countBy(apache, (a) => a.status);
    const methods = countBy(apache, (a) => a.method);
    const rows = Array.from({ length: Math.max(statuses.length, methods.length) }, (_, i) => [
      statuses[i]?.[0] ?? null,
      statuses[i]?.[1] ?? null,
      methods[i]?.[0] ?? null,
      methods[i]?.[1] ?? null,
    ]);
    const r = await both(
      'index=apache_$s | stats count by status | appendcols [search index=apache_$s | stats count as n by method]',
    );
    assert.deepEqual(r.columns, ['status', 'count', 'method', 'n']);
    assert.deepEqual(r.rows, normRows(rows));
    // count is in both: the row's own wins, unless override=true
    const kept = await both(
      'index=apache_$s | stats count by status | appendcols [search index=apache_$s | stats count by method]',
    );
    assert.deepEqual(
      kept.rows.map((x) => x[1]),
      normRows(rows.map((x) => [x[1] ?? x[3]])).map((x) => x[0]),
    );
    const over = await both(
      'index=apache_$s | stats count by status | appendcols override=true [search index=apache_$s | stats count by method]',
    );
    assert.deepEqual(
      over.rows.map((x) => x[1]),
      normRows(rows.map((x) => [x[3] ?? x[1]])).map((x) => x[0]),
    );
    // the usual use: one row of totals beside another
    const pct = await both(
      'index=apache_$s status>=500 | stats count as errors | appendcols [search index=apache_$s | stats count as total] | eval pct=round(100 * errors / total, 2)',
    );
    const errors = apache.filter((a) => Number(a.status) >= 500).length;
    assert.deepEqual(pct.rows, normRows([[errors, apache.length, round((100 * errors) / apache.length, 2)]]));
  });
});
