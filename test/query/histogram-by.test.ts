import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createIngestToken } from '../helpers/auth.js';
import type { HistogramResult, SearchResult } from '../../src/query/types.js';

/** `/api/histogram?by=<field>`: buckets stacked by the most common values of a field, OTHER and NULL. */

interface Row {
  timeUs: number;
  host: string;
  level?: string;
  status: number;
}

const T0 = Date.UTC(2025, 2, 1, 10, 0, 0) * 1000;
const LEVELS: [string | undefined, number][] = [
  ['info', 200],
  ['error', 100],
  ['warn', 80],
  ['debug', 50],
  ['trace', 30],
  ['fatal', 10],
  ['OTHER', 5],
  [undefined, 130],
];

/** 605 events over ten minutes at odd microseconds; the level mix above, three hosts. */
function makeRows(): Row[] {
  const rows: Row[] = [];
  let i = 0;
  for (const [level, n] of LEVELS) {
    for (let k = 0; k < n; k++, i++) {
      rows.push({
        timeUs: T0 + ((i * 7_919_137) % 600_000_000),
        host: `web-${i % 3}`,
        ...(level ? { level } : {}),
        status: i % 4 === 0 ? 500 : 200,
      });
    }
  }
  return rows;
}

function iso(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
}

describe('histogram stacked by a field', () => {
  let srv: TestServer;
  let admin: string;
  const rows = makeRows();
  const get = async <T>(params: Record<string, string>, token = admin): Promise<{ status: number; body: T }> => {
    const res = await fetch(
      `${srv.url}/api/histogram?${new URLSearchParams({ env: 'default', index: 'app', buckets: '10', ...params })}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    return { status: res.status, body: (await res.json()) as T };
  };

  before(async () => {
    srv = await startTestServer();
    admin = await adminToken(srv);
    const token = await createIngestToken(srv, { env: 'default', index: 'app' });
    const body = rows
      .map((r) =>
        JSON.stringify({
          time: iso(r.timeUs),
          host: r.host,
          message: `request ${r.status}`,
          level: r.level,
          status: r.status,
        }),
      )
      .join('\n');
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200, await res.text());
  });
  after(async () => {
    await srv.close();
  });

  /** The test's own stacked counts: series name → bucket start → events. */
  function expected(
    pick: (r: Row) => string | undefined,
    k: number,
    spanSecs: number,
    keep: (r: Row) => boolean = () => true,
  ) {
    const kept = rows.filter(keep);
    const totals = new Map<string, number>();
    for (const r of kept) {
      const v = pick(r);
      if (v !== undefined) totals.set(v, (totals.get(v) ?? 0) + 1);
    }
    const top = [...totals]
      .filter(([v]) => v !== 'OTHER' && v !== 'NULL')
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, k)
      .map(([v]) => v);
    const spanUs = spanSecs * 1_000_000;
    const cells = new Map<string, Map<string, number>>();
    for (const r of kept) {
      const v = pick(r);
      const name = v === undefined ? 'NULL' : top.includes(v) ? v : 'OTHER';
      const t = iso(Math.floor(r.timeUs / spanUs) * spanUs);
      const cell = cells.get(t) ?? new Map<string, number>();
      cells.set(t, cell.set(name, (cell.get(name) ?? 0) + 1));
    }
    const present = new Set([...cells.values()].flatMap((c) => [...c.keys()]));
    const series = [...top, ...['OTHER', 'NULL'].filter((s) => present.has(s))];
    return { series, cells };
  }

  function assertStacked(h: HistogramResult, want: ReturnType<typeof expected>): void {
    assert.deepEqual(h.series, want.series);
    for (const b of h.buckets) {
      const got = Object.entries(b.series!).filter(([, n]) => n > 0);
      assert.deepEqual(new Map(got), want.cells.get(b.time) ?? new Map(), b.time);
      assert.equal(
        got.reduce((s, [, n]) => s + n, 0),
        b.count,
        `series sum to the count at ${b.time}`,
      );
    }
  }

  it('answers exactly as before without by', async () => {
    const h = await get<HistogramResult>({ q: '*' });
    assert.equal(h.status, 200);
    assert.equal(h.body.series, undefined);
    assert.ok(h.body.buckets.every((b) => b.series === undefined && Object.keys(b).join() === 'time,count'));
    assert.equal(
      h.body.buckets.reduce((s, b) => s + b.count, 0),
      rows.length,
    );
  });

  it('stacks by the top values of a field, then OTHER (a value spelled OTHER included) and NULL', async () => {
    const plain = await get<HistogramResult>({ q: '*' });
    const h = await get<HistogramResult>({ q: '*', by: 'level', series: '3' });
    assert.equal(h.status, 200);
    assert.deepEqual(h.body.series, ['info', 'error', 'warn', 'OTHER', 'NULL']);
    assertStacked(
      h.body,
      expected((r) => r.level, 3, h.body.spanSecs),
    );
    assert.deepEqual(
      h.body.buckets.map((b) => [b.time, b.count]),
      plain.body.buckets.map((b) => [b.time, b.count]),
      'the same buckets and counts as the plain histogram',
    );
    assert.equal(h.body.meta.matched, rows.length);
  });

  it('agrees with stats count by the field over the same search', async () => {
    const h = await get<HistogramResult>({ q: 'status=500', by: 'level', series: '20' });
    const res = await fetch(
      `${srv.url}/api/search?${new URLSearchParams({ q: 'status=500 | stats count by level', index: 'app' })}`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    const stats = (await res.json()) as SearchResult;
    const totals = new Map<string, number>();
    for (const b of h.body.buckets)
      for (const [name, n] of Object.entries(b.series!)) totals.set(name, (totals.get(name) ?? 0) + n);
    const withoutLevel = rows.filter((r) => r.status === 500 && r.level === undefined).length;
    // the literal value OTHER is folded into the OTHER series, which nothing else joins at 20 series
    const fromStats = new Map(stats.rows!.map(([v, n]) => [String(v), n as number]));
    assert.deepEqual(totals, new Map([...fromStats, ['NULL', withoutLevel]]));
    assertStacked(
      h.body,
      expected(
        (r) => r.level,
        20,
        h.body.spanSecs,
        (r) => r.status === 500,
      ),
    );
  });

  it('stacks by a core field and by a numeric field named as the JSON shows it', async () => {
    const byHost = await get<HistogramResult>({ q: '*', by: 'host' });
    assertStacked(
      byHost.body,
      expected((r) => r.host, 5, byHost.body.spanSecs),
    );
    assert.deepEqual(byHost.body.series, ['web-0', 'web-1', 'web-2']);
    const byStatus = await get<HistogramResult>({ q: '*', by: 'status', series: '1' });
    assert.deepEqual(byStatus.body.series, ['200', 'OTHER']);
    assertStacked(
      byStatus.body,
      expected((r) => String(r.status), 1, byStatus.body.spanSecs),
    );
  });

  it('stacks after counted pipes, by a field one of them made', async () => {
    const h = await get<HistogramResult>({ q: '* | eval sev=if(status >= 500, "bad", "good")', by: 'sev' });
    assertStacked(
      h.body,
      expected((r) => (r.status >= 500 ? 'bad' : 'good'), 5, h.body.spanSecs),
    );
  });

  it('puts every event in NULL for a field no event has, and answers empty for no data', async () => {
    const h = await get<HistogramResult>({ q: '*', by: '"no such field"' });
    assert.deepEqual(h.body.series, ['NULL']);
    assert.equal(
      h.body.buckets.reduce((s, b) => s + (b.series!.NULL ?? 0), 0),
      rows.length,
    );
    const none = await get<HistogramResult>({ q: '*', index: 'nothing-here', by: 'level' });
    assert.deepEqual([none.status, none.body.series, none.body.buckets], [200, [], []]);
  });

  it('rejects a malformed by or series with 400 naming the parameter', async () => {
    for (const by of ['a b', 'ho*', '"open', 'x | y']) {
      const r = await get<{ error: { code: string; field: string } }>({ q: '*', by });
      assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'invalid_input', 'by'], by);
    }
    for (const series of ['0', '21', 'x']) {
      const r = await get<{ error: { code: string; field: string } }>({ q: '*', by: 'host', series });
      assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'invalid_input', 'series'], series);
    }
  });
});
