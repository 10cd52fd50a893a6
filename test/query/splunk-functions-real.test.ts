import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * Splunk's aggregations, eval functions and pipe options (issue 28) on the real Apache access log:
 * the file's lines become events with the fields a Splunk user extracts (clientip, method, uri,
 * status, bytes), the older half in sealed blocks and the rest live, and every answer is checked
 * against what this test computes from the same lines.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const FILE = join(DATA, 'elastic-examples-apache/apache_access_combined.log');
const present = existsSync(FILE);
if (!present) console.log(`# skipping Splunk function tests on real logs: no real data at ${DATA} (set SVC_REAL_DATA)`);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LINE =
  /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) \+0000\] "(\S+) (\S+)[^"]*" (\d{3}) (\S+)/;

interface Row {
  ms: number;
  clientip: string;
  method: string;
  uri: string;
  status: number;
  bytes?: number;
}

function parseLine(line: string): Row | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[4]), MONTHS.indexOf(m[3]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  const row: Row = { ms, clientip: m[1], method: m[8], uri: m[9], status: Number(m[10]) };
  if (/^\d+$/.test(m[11])) row.bytes = Number(m[11]);
  return row;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
const variance = (xs: number[], sample: boolean) => {
  const m = mean(xs);
  return sum(xs.map((x) => (x - m) ** 2)) / (xs.length - (sample ? 1 : 0));
};
/** DuckDB's quantile_cont: linear interpolation between the closest ranks. */
function quantile(xs: number[], q: number): number {
  const v = [...xs].sort((a, b) => a - b);
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}
const close = (a: unknown, b: number, what: string) =>
  assert.ok(Math.abs(Number(a) - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${what}: ${String(a)} vs ${b}`);
const groupBy = <T, K>(xs: T[], key: (x: T) => K) => {
  const m = new Map<K, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
};

describe(
  'Splunk aggregations and eval functions on the real Apache log',
  { skip: present ? false : `no ${FILE}` },
  () => {
    let st: TestStorage;
    let svc: QueryService;
    const lines = present
      ? readFileSync(FILE, 'utf8')
          .split('\n')
          .filter((l) => l.length > 0)
      : [];
    const rows = lines.map(parseLine).filter((r): r is Row => r !== undefined);
    const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 10_000 });
    const table = async (q: string) => {
      const r = await search(q);
      assert.ok(r.columns, `${q}: a table`);
      return { columns: r.columns, rows: r.rows ?? [], col: (name: string) => r.columns!.indexOf(name) };
    };
    const byIp = groupBy(rows, (r) => r.clientip);
    const busiest = [...byIp.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 4);

    before(async () => {
      st = await openStorage();
      svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
      const events: LogEvent[] = lines.map((line) => {
        const r = parseLine(line);
        const fields: LogEvent['fields'] = {};
        if (r) {
          Object.assign(fields, { clientip: r.clientip, method: r.method, uri: r.uri, status: r.status });
          if (r.bytes !== undefined) fields.bytes = r.bytes;
        }
        const ms = r?.ms ?? rows[0].ms;
        return {
          timeUs: ms * 1000,
          env: 'default',
          index: 'main',
          host: 'web',
          source: 'apache',
          sourcetype: 'access_combined',
          message: line,
          fields,
        };
      });
      // the older half in sealed blocks, the newer half live
      await writeHalfSealed(st.engine, events);
    });
    after(() => st?.close());

    it('parsed nearly every line of the file', () => {
      assert.ok(rows.length > lines.length * 0.99, `${rows.length} of ${lines.length}`);
    });

    it('answers latest, earliest, first, last and their times per client as the events have them', async () => {
      const t = await table(
        '* | stats latest(status) as lst, earliest(status) as est, first(status) as fst, last(status) as lat, latest_time(status) as lt, earliest_time(status) as et, count by clientip',
      );
      for (const [ip, mine] of busiest) {
        const row = t.rows.find((r) => r[t.col('clientip')] === ip)!;
        const maxMs = Math.max(...mine.map((r) => r.ms));
        const minMs = Math.min(...mine.map((r) => r.ms));
        const at = (ms: number) => mine.filter((r) => r.ms === ms).map((r) => r.status);
        assert.ok(at(maxMs).includes(row[t.col('lst')] as number), `${ip} latest`);
        assert.ok(at(minMs).includes(row[t.col('est')] as number), `${ip} earliest`);
        // the events come newest first: first is the newest value, last the oldest
        assert.ok(at(maxMs).includes(row[t.col('fst')] as number), `${ip} first`);
        assert.ok(at(minMs).includes(row[t.col('lat')] as number), `${ip} last`);
        assert.equal(Date.parse(row[t.col('lt')] as string), maxMs);
        assert.equal(Date.parse(row[t.col('et')] as string), minMs);
        assert.equal(row[t.col('count')], mine.length);
      }
      // sorted oldest first, first is the oldest value
      const sorted = await table('* | sort 0 _time | stats first(status) as f, last(status) as l by clientip');
      for (const [ip, mine] of busiest) {
        const row = sorted.rows.find((r) => r[0] === ip)!;
        const minMs = Math.min(...mine.map((r) => r.ms));
        const maxMs = Math.max(...mine.map((r) => r.ms));
        assert.ok(
          mine.filter((r) => r.ms === minMs).some((r) => r.status === row[1]),
          `${ip} first after sort`,
        );
        assert.ok(
          mine.filter((r) => r.ms === maxMs).some((r) => r.status === row[2]),
          `${ip} last after sort`,
        );
      }
    });

    it('lists the values of each client in event order, newest first, at most 100', async () => {
      const distinctTimes = [...byIp].filter(([, m]) => m.length >= 3 && new Set(m.map((r) => r.ms)).size === m.length);
      assert.ok(distinctTimes.length > 0);
      const t = await table('* | stats list(uri) as uris, count by clientip');
      for (const [ip, mine] of distinctTimes.slice(0, 20)) {
        const row = t.rows.find((r) => r[0] === ip)!;
        const expect = [...mine].sort((a, b) => b.ms - a.ms).map((r) => r.uri);
        assert.deepEqual(row[1], expect.slice(0, 100), ip);
      }
      const [bigIp, big] = busiest[0];
      const bigRow = t.rows.find((r) => r[0] === bigIp)!;
      assert.equal((bigRow[1] as string[]).length, Math.min(100, big.length));
    });

    it('computes stdev, stdevp, var, varp, range, mean, mode, median and perc95 of bytes per status', async () => {
      const t = await table(
        '* | stats stdev(bytes) as sd, stdevp(bytes) as sdp, var(bytes) as v, varp(bytes) as vp, range(bytes) as r, mean(bytes) as m, mode(bytes) as mo, median(bytes) as med, perc95(bytes) as p by status',
      );
      const byStatus = groupBy(
        rows.filter((r) => r.bytes !== undefined),
        (r) => r.status,
      );
      assert.deepEqual(
        t.rows.map((r) => r[0]),
        [...new Set(rows.map((r) => r.status))].sort((a, b) => a - b),
      );
      for (const row of t.rows) {
        const xs = (byStatus.get(row[0] as number) ?? []).map((r) => r.bytes!);
        const what = (name: string) => `status ${String(row[0])} ${name}`;
        if (xs.length === 0) {
          // a status whose responses carry no size (304): every aggregation of bytes is null
          assert.deepEqual(row.slice(1), Array(9).fill(null), what('all'));
          continue;
        }
        if (xs.length > 1) {
          close(row[1], Math.sqrt(variance(xs, true)), what('stdev'));
          close(row[3], variance(xs, true), what('var'));
        } else {
          assert.equal(row[1], null, 'a sample deviation of one value is null');
        }
        close(row[2], Math.sqrt(variance(xs, false)), what('stdevp'));
        close(row[4], variance(xs, false), what('varp'));
        close(row[5], Math.max(...xs) - Math.min(...xs), what('range'));
        close(row[6], mean(xs), what('mean'));
        const freq = groupBy(xs, (x) => x);
        const top = Math.max(...[...freq.values()].map((v) => v.length));
        assert.ok(freq.get(Number(row[7]))?.length === top, what('mode'));
        close(row[8], quantile(xs, 0.5), what('median'));
        close(row[9], quantile(xs, 0.95), what('perc95'));
      }
    });

    it('counts and sums eval expressions, with quoted aliases', async () => {
      const t = await table(
        '* | stats count(eval(status=404)) as "Not Found", sum(eval(if(status >= 500, 1, 0))) as errors, count as "Total Events" by method',
      );
      assert.deepEqual(t.columns, ['method', 'Not Found', 'errors', 'Total Events']);
      for (const [method, mine] of groupBy(rows, (r) => r.method)) {
        const row = t.rows.find((r) => r[0] === method)!;
        assert.deepEqual(row.slice(1), [
          mine.filter((r) => r.status === 404).length,
          mine.filter((r) => r.status >= 500).length,
          mine.length,
        ]);
      }
    });

    it('takes values(*) as * for every field of each group', async () => {
      const [ip, mine] = busiest[3];
      const t = await table(`clientip=${ip} | stats values(*) as * by clientip`);
      for (const f of ['method', 'uri', 'status', 'host', 'sourcetype']) assert.ok(t.columns.includes(f), f);
      assert.ok(!t.columns.includes('message') && !t.columns.includes('_time'));
      assert.deepEqual(t.rows[0][t.col('method')], [...new Set(mine.map((r) => r.method))].sort());
      assert.deepEqual(t.rows[0][t.col('status')], [...new Set(mine.map((r) => String(r.status)))].sort());
    });

    it('adds latest and list per client to every event with eventstats', async () => {
      const [ip, mine] = busiest[1];
      const r = await search(`clientip=${ip} | eventstats latest(uri) as newest, count by clientip | head 5`);
      const maxMs = Math.max(...mine.map((x) => x.ms));
      for (const e of r.events) {
        assert.ok(mine.filter((x) => x.ms === maxMs).some((x) => x.uri === e.fields.newest));
        assert.equal(e.fields.count, mine.length);
      }
    });

    it('takes field patterns in stats, LIKE, lower-case and/or, trim with characters and mvmap', async () => {
      const t = await table('* | stats max(b*) as max_b* by method');
      assert.deepEqual(t.columns, ['method', 'max_bytes']);
      for (const [method, mine] of groupBy(rows, (r) => r.method)) {
        const sizes = mine.flatMap((r) => (r.bytes === undefined ? [] : [r.bytes]));
        assert.equal(t.rows.find((r) => r[0] === method)?.[1] ?? null, sizes.length ? Math.max(...sizes) : null);
      }
      const like = await table(
        '* | where uri LIKE "/presentations/%" and (status = 200 or status = 304) | stats count',
      );
      assert.deepEqual(like.rows, [
        [rows.filter((r) => r.uri.startsWith('/presentations/') && [200, 304].includes(r.status)).length],
      ]);
      const r = await search(
        '* | head 100 | eval t=trim(uri, "/"), parts=split(uri, "/"), upper=mvmap(parts, if(len(parts) > 0, upper(parts), null()))',
      );
      for (const e of r.events) {
        const uri = e.fields.uri as string | undefined;
        if (uri === undefined) continue;
        assert.equal(e.fields.t, uri.replace(/^\/+|\/+$/g, ''));
        const up = uri
          .split('/')
          .filter((x) => x.length > 0)
          .map((x) => x.toUpperCase());
        assert.deepEqual(e.fields.upper ?? null, up.length ? up : null);
      }
      const [ip, mine] = busiest[0];
      const anyValue = await table(
        `clientip=${ip} | stats values(method) as methods by clientip | where methods = "GET" | stats count`,
      );
      assert.deepEqual(anyValue.rows, [[mine.some((x) => x.method === 'GET') ? 1 : 0]]);
      await assert.rejects(
        search('* | stats values(method) as m | where m != "GET"'),
        /cannot compare a multivalue with "!="/,
      );
      // a multivalue by field groups by each of its values: clients per method
      const perValue = await table('* | stats values(method) as m by clientip | stats count by m');
      const clients = new Map<string, Set<string>>();
      for (const x of rows)
        if (x.method !== undefined) clients.set(x.method, (clients.get(x.method) ?? new Set()).add(x.clientip));
      assert.deepEqual(
        perValue.rows,
        [...clients].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, ips]) => [m, ips.size]),
      );
      const after = await search('* | head 20 | rex field=clientip "(?<octet>\\d+)" max_match=3');
      for (const e of after.events) assert.deepEqual(e.fields.octet, String(e.fields.clientip).split('.').slice(0, 3));
    });

    it('bins with span after the field and skips comments', async () => {
      const t = await table('* ```every event``` | bin _time span=1h ```hourly``` | stats count by _time');
      // every line's time as the events got it (a line the test cannot read took the first time)
      const times = lines.map((l) => parseLine(l)?.ms ?? rows[0].ms);
      const hours = groupBy(times, (ms) => Math.floor(ms / 3_600_000));
      assert.equal(t.rows.length, hours.size);
      for (const [time, n] of t.rows) assert.equal(n, hours.get(Date.parse(time as string) / 3_600_000)?.length);
    });

    it('runs the new aggregations in chart and streamstats too', async () => {
      const t = await table('* | chart count(eval(bytes > 10000)) as big, latest(uri) as newest over method');
      for (const [method, mine] of groupBy(rows, (r) => r.method)) {
        const row = t.rows.find((r) => r[0] === method)!;
        assert.equal(row[1], mine.filter((r) => (r.bytes ?? 0) > 10000).length, method);
        const maxMs = Math.max(...mine.map((r) => r.ms));
        assert.ok(
          mine.filter((r) => r.ms === maxMs).some((r) => r.uri === row[2]),
          `${method} newest`,
        );
      }
      const pivot = await table('* | chart limit=0 count(eval(bytes > 10000)) over method by status');
      const get = pivot.rows.find((r) => r[0] === 'GET')!;
      const gets = rows.filter((r) => r.method === 'GET');
      assert.equal(get[pivot.col('200')], gets.filter((r) => r.status === 200 && (r.bytes ?? 0) > 10000).length);
      const r = await search(
        '* | sort 0 _time | streamstats window=3 list(status) as last3, first(status) as f | head 10',
      );
      r.events.forEach((e, i) => {
        const window = r.events.slice(Math.max(0, i - 2), i + 1);
        assert.deepEqual(
          e.fields.last3,
          window.map((x) => String(x.fields.status)),
        );
        assert.equal(e.fields.f, window[0].fields.status);
      });
    });

    it('gives per_minute per hour bucket in timechart', async () => {
      const t = await table('* | timechart span=1h per_minute(bytes) as bpm');
      const buckets = new Map<number, number>();
      for (const r of rows)
        if (r.bytes !== undefined)
          buckets.set(Math.floor(r.ms / 3_600_000), (buckets.get(Math.floor(r.ms / 3_600_000)) ?? 0) + r.bytes);
      let seen = 0;
      for (const [time, v] of t.rows) {
        const b = Math.floor(Date.parse(time as string) / 3_600_000);
        if (!buckets.has(b)) continue;
        close(v, (buckets.get(b)! * 60) / 3600, `bucket ${String(time)}`);
        seen++;
      }
      assert.equal(seen, buckets.size);
    });

    it('keeps the two largest series of timechart by with limit=2 and counts the rest as OTHER', async () => {
      const t = await table('* | timechart span=1d count by method limit=2 usenull=f');
      const totals = [...groupBy(rows, (r) => r.method)].sort((a, b) => b[1].length - a[1].length);
      const top = totals.slice(0, 2).map(([m]) => m);
      assert.deepEqual(t.columns, ['_time', ...[...top].sort(), 'OTHER']);
      for (const row of t.rows) {
        const day = Math.floor(Date.parse(row[0] as string) / 86_400_000);
        const mine = rows.filter((r) => Math.floor(r.ms / 86_400_000) === day);
        for (const m of top) assert.equal(row[t.col(m)], mine.filter((r) => r.method === m).length, `${m} ${day}`);
        assert.equal(row[t.col('OTHER')], mine.filter((r) => !top.includes(r.method)).length);
      }
      const dropped = await table('* | timechart span=1d useother=f limit=2 count by method');
      assert.deepEqual(dropped.columns, ['_time', ...[...top].sort()]);
    });

    it('sorts with a detached sign, 0 for every row and a trailing desc; top and fillnull take options after the fields', async () => {
      const counts = [...groupBy(rows, (r) => r.status)].map(([s, m]) => [s, m.length] as const);
      const bySize = [...counts].sort((a, b) => b[1] - a[1]);
      const t = await table('* | stats count by status | sort - count');
      assert.deepEqual(
        t.rows.map((r) => r[1]),
        bySize.map((c) => c[1]),
      );
      const asc = await table('* | stats count by status | sort 0 count desc');
      assert.deepEqual(
        asc.rows.map((r) => r[1]),
        bySize.map((c) => c[1]),
      );
      const top = await table('* | top status limit=3');
      assert.deepEqual(
        top.rows.map((r) => [r[0], r[1]]),
        bySize.slice(0, 3).map(([s, n]) => [s, n]),
      );
      const filled = await table('* | fillnull bytes value=-1 | where bytes = -1 | stats count');
      assert.deepEqual(filled.rows, [
        [rows.filter((r) => r.bytes === undefined).length + (lines.length - rows.length)],
      ]);
    });

    it('formats numbers and times and moves times like Splunk', async () => {
      const r = await search(
        '* | head 50 | eval c=tostring(bytes * 1000 + 0.5, "commas"), h=tostring(bytes, "hex"), d=tostring(bytes, "duration"), day=strftime(_time, "%F %T.%3N %Z"), since=relative_time(_time, "-1d@d"), wk=relative_time(_time, "@w1")',
      );
      assert.equal(r.events.length, 50);
      for (const e of r.events) {
        const ms = Date.parse(e.time);
        const bytes = e.fields.bytes as number | undefined;
        if (bytes !== undefined) {
          const n = bytes * 1000 + 0.5;
          assert.equal(e.fields.c, n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
          assert.equal(e.fields.h, `0x${bytes.toString(16).toUpperCase()}`);
          const pad = (x: number) => String(x).padStart(2, '0');
          const dd = Math.floor(bytes / 86400);
          const clock = `${pad(Math.floor((bytes % 86400) / 3600))}:${pad(Math.floor((bytes % 3600) / 60))}:${pad(bytes % 60)}`;
          assert.equal(e.fields.d, dd > 0 ? `${dd}+${clock}` : clock);
        }
        const iso = new Date(ms).toISOString();
        assert.equal(e.fields.day, `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`);
        const midnight = Math.floor(ms / 86_400_000) * 86_400_000;
        assert.equal(e.fields.since, (midnight - 86_400_000) / 1000);
        const monday = midnight - ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000;
        assert.equal(e.fields.wk, monday / 1000);
      }
    });

    it('splits, indexes, counts, joins, filters and appends multivalues', async () => {
      const r = await search(
        '* | head 200 | eval parts=split(uri, "/"), n=mvcount(parts), second=mvindex(parts, 1), lastp=mvindex(parts, -1), firsttwo=mvjoin(mvindex(parts, 0, 1), "|"), pngs=mvfilter(match(parts, "\\.png$")), both=mvappend(method, null(), status), ipdash=clientip."-".method',
      );
      for (const e of r.events) {
        const uri = e.fields.uri as string | undefined;
        if (uri === undefined) continue;
        const parts = uri.split('/');
        assert.equal(e.fields.n, parts.length);
        assert.equal(e.fields.second ?? null, parts.length > 1 ? parts[1] : null);
        assert.equal(e.fields.lastp, parts[parts.length - 1]);
        assert.equal(e.fields.firsttwo, parts.slice(0, 2).join('|'));
        const pngs = parts.filter((p) => /\.png$/.test(p));
        assert.deepEqual(e.fields.pngs ?? null, pngs.length ? pngs : null);
        assert.deepEqual(e.fields.both, [e.fields.method, String(e.fields.status)]);
        assert.equal(e.fields.ipdash, `${String(e.fields.clientip)}-${String(e.fields.method)}`);
      }
    });

    it('matches CIDR blocks, in() and the literal functions', async () => {
      const inBlock = (ip: string) => ip.startsWith('66.249.');
      const t = await table(
        '* | where cidrmatch("66.249.0.0/16", clientip) AND in(status, 200, 304) AND true() | stats count',
      );
      assert.deepEqual(t.rows, [[rows.filter((r) => inBlock(r.clientip) && [200, 304].includes(r.status)).length]]);
      const notIn = await table('* | where NOT method IN ("GET", "HEAD") AND status IN (200, 404) | stats count');
      assert.deepEqual(notIn.rows, [
        [rows.filter((r) => !['GET', 'HEAD'].includes(r.method) && [200, 404].includes(r.status)).length],
      ]);
    });

    it('extracts every match with rex max_match and replaces text with mode=sed', async () => {
      const r = await search(
        '* | head 100 | rex field=clientip max_match=0 "(?<octet>\\d+)" | rex field=uri mode=sed "s/\\//_/g" | eval octets=mvcount(octet)',
      );
      for (const e of r.events) {
        const row = parseLine(e.message)!;
        assert.deepEqual(e.fields.octet, row.clientip.split('.'));
        assert.equal(e.fields.octets, 4);
        assert.equal(e.fields.uri, row.uri.replaceAll('/', '_'));
      }
      const two = await search('* | head 10 | rex field=clientip max_match=2 "(?P<octet>\\d+)"');
      for (const e of two.events) assert.deepEqual(e.fields.octet, String(e.fields.clientip).split('.').slice(0, 2));
      const dotall = await search('* | head 10 | rex "(?s)^(?P<ip>\\S+) .*$"');
      for (const e of dotall.events) assert.equal(e.fields.ip, e.fields.clientip);
    });
  },
);
