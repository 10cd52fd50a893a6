import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestStorage } from '../storage/helpers.js';
import { REAL_DATA, REAL_LOGS, REAL_LOGS_PRESENT, realLines, storeSealedAndLive } from '../helpers/real-logs.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';

/**
 * `| tstats` (issue 28 item 3) and `| makeresults` over real logs: the Apache access log and the
 * OpenSSH log, each stored twice (sealed into blocks, and live), since the two are read by
 * different code and tstats' counts may come from the blocks' per-minute counts. Every answer is
 * checked against this test's own reading of the raw lines (split on quotes, spaces and brackets),
 * and against the pipeline tstats stands for (`<where> | bin _time span=… | stats … by …`).
 */
const DATA = REAL_DATA;
const present = REAL_LOGS_PRESENT;
if (!present)
  console.log(`# skipping tstats/makeresults tests on real logs: no real data at ${DATA} (set SVC_REAL_DATA)`);
const FILES = REAL_LOGS;
const lines = realLines;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

interface Access {
  ms: number;
  clientip: string;
  method: string | undefined;
  status: string;
}

/** The test's own reading of an access line: the first word, the bracketed time, the quoted request, the status. */
function access(l: string): Access {
  const q = l.split('"');
  const req = q[1].split(' ');
  const inside = l.slice(l.indexOf('[') + 1, l.indexOf(']'));
  const [day, mon, rest] = inside.split('/');
  const [year, hh, mm, ss] = rest.split(' ')[0].split(':');
  const offset = rest.split(' ')[1];
  const offMin = (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  const ms = Date.UTC(
    Number(year),
    MONTHS.indexOf(mon.toLowerCase()),
    Number(day),
    Number(hh),
    Number(mm) - offMin,
    Number(ss),
  );
  return {
    ms,
    clientip: l.split(' ')[0],
    method: req.length === 3 ? req[0] : undefined,
    status: q[2].trim().split(' ')[0],
  };
}

/** svc's text of a time: RFC 3339 with microseconds. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');
const floorTo = (ms: number, spanMs: number) => Math.floor(ms / spanMs) * spanMs;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function group<T, V>(
  xs: T[],
  key: (x: T) => string | undefined,
  init: () => V,
  add: (v: V, x: T) => V,
): Map<string, V> {
  const m = new Map<string, V>();
  for (const x of xs) {
    const k = key(x);
    if (k !== undefined) m.set(k, add(m.get(k) ?? init(), x));
  }
  return m;
}
const byKey = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('tstats and makeresults on real logs', { skip: present ? false : `no real data at ${DATA}` }, () => {
  let st: TestStorage;
  let svc: QueryService;
  const apache = present ? lines(FILES.apache).map(access) : [];
  const ssh = present ? lines(FILES.ssh) : [];
  const STORES = ['sealed', 'live'] as const;
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 10_000 });

  /** The query over the sealed and the live copy (`$i` is the index); both answers must agree. */
  async function both(
    kind: 'apache' | 'ssh',
    q: string,
  ): Promise<{ columns: string[]; rows: unknown[][]; matched: number }> {
    const out = [];
    for (const s of STORES) {
      const r = await search(q.replaceAll('$i', `${kind}_${s}`));
      out.push({ columns: r.columns ?? [], rows: r.rows ?? [], matched: r.meta.matched });
    }
    assert.deepEqual(out[1], out[0], `${q}: the live copy answers like the sealed one`);
    return out[0];
  }
  /** tstats' answer, which must equal the pipeline it stands for. */
  async function tstats(kind: 'apache' | 'ssh', q: string, pipeline: string): Promise<unknown[][]> {
    const t = await both(kind, q);
    const p = await both(kind, pipeline);
    assert.deepEqual(t, p, `${q} answers as ${pipeline}`);
    return t.rows;
  }

  before(async () => {
    ({ st, svc } = await storeSealedAndLive());
  });
  after(() => st?.close());

  it('counts per hour by _time span=1h, only the hours that hold events', async () => {
    const expect = byKey(
      group(
        apache,
        (a) => iso(floorTo(a.ms, HOUR)),
        () => 0,
        (n) => n + 1,
      ),
    );
    assert.ok(expect.length > 10);
    const rows = await tstats(
      'apache',
      '| tstats count where index=$i by _time span=1h',
      'index=$i | bin _time span=1h | stats count by _time',
    );
    assert.deepEqual(rows, expect);
  });

  it('counts by a stored column, with or without where index=', async () => {
    const all = await tstats(
      'apache',
      '| tstats count where index=$i by sourcetype',
      'index=$i | stats count by sourcetype',
    );
    assert.deepEqual(all, [['access_combined', apache.length]]);
    const named = await both('apache', '| tstats count as n where index=$i by sourcetype');
    assert.deepEqual(named.columns, ['sourcetype', 'n']);
    assert.deepEqual(named.rows, [['access_combined', apache.length]]);
    assert.equal(named.matched, apache.length);
    const idx = await search('| tstats count where index=apache_* by index');
    assert.deepEqual(idx.rows, [
      ['apache_live', apache.length],
      ['apache_sealed', apache.length],
    ]);
  });

  it('groups events lacking a by field under fillnull_value instead of leaving them out', async () => {
    const rows = await tstats(
      'apache',
      '| tstats fillnull_value=none count where index=$i by sourcetype, splunk_server',
      'index=$i | fillnull value=none sourcetype, splunk_server | stats count by sourcetype, splunk_server',
    );
    assert.deepEqual(rows, [['access_combined', 'none', apache.length]]);
    const without = await both('apache', '| tstats count where index=$i by sourcetype, splunk_server');
    assert.deepEqual(without.rows, []);
  });

  it('honours filters on fields found in the line, grouped by _time and another field', async () => {
    const notFound = apache.filter((a) => a.status === '404');
    const expect = byKey(
      group(
        notFound,
        (a) => iso(floorTo(a.ms, DAY)),
        () => 0,
        (n) => n + 1,
      ),
    ).map(([t, n]) => ['h', t, n]);
    assert.ok(expect.length > 1);
    const rows = await tstats(
      'apache',
      '| tstats count where index=$i status=404 groupby host, _time span=1d',
      'index=$i status=404 | bin _time span=1d | stats count by host, _time',
    );
    // by host, then _time
    assert.deepEqual(rows, expect);
  });

  it('aggregates dc, min/max/latest of _time and values by a field found in the line', async () => {
    const gets = apache.filter((a) => a.method === 'GET');
    const expect = byKey(
      group(
        gets,
        (a) => a.status,
        () => ({ n: 0, ips: new Set<string>(), first: Infinity, last: -Infinity }),
        (v, a) => ({
          n: v.n + 1,
          ips: v.ips.add(a.clientip),
          first: Math.min(v.first, a.ms),
          last: Math.max(v.last, a.ms),
        }),
      ),
    ).map(([status, v]) => [status, v.n, v.ips.size, iso(v.first), iso(v.last), iso(v.last)]);
    const rows = await tstats(
      'apache',
      '| tstats count, dc(clientip) as ips, min(_time) as first, max(_time) as last, latest(_time) as lastTime where index=$i method=GET by status',
      'index=$i method=GET | stats count, dc(clientip) as ips, min(_time) as first, max(_time) as last, latest(_time) as lastTime by status',
    );
    assert.deepEqual(rows, expect);
  });

  it("reads each event's own time in max(_time) when _time is bucketed, as Splunk's tstats does", async () => {
    const expect = byKey(
      group(
        apache,
        (a) => iso(floorTo(a.ms, DAY)),
        () => ({ n: 0, last: -Infinity }),
        (v, a) => ({
          n: v.n + 1,
          last: Math.max(v.last, a.ms),
        }),
      ),
    ).map(([day, v]) => [day, v.n, iso(v.last)]);
    const r = await both('apache', '| tstats count, max(_time) as last_seen where index=$i by _time span=1d');
    assert.deepEqual(r.columns, ['_time', 'count', 'last_seen']);
    assert.deepEqual(r.rows, expect);
    assert.ok(
      expect.some(([day, , last]) => day !== last),
      'the latest event of a day is not at its start',
    );
  });

  it('counts OpenSSH lines by phrase per hour, and all of them by source', async () => {
    // "Dec 10 06:55:46 …": the month, day and hour of the line (the year is svc's guess, not compared)
    const hourOf = (l: string) => {
      const [mon, day, time] = l.split(' ').filter((w) => w !== '');
      return `${String(MONTHS.indexOf(mon.toLowerCase()) + 1).padStart(2, '0')}-${day.padStart(2, '0')}T${time.slice(0, 2)}`;
    };
    const failed = ssh.filter((l) => l.toLowerCase().includes('failed password'));
    const expect = byKey(
      group(
        failed,
        hourOf,
        () => 0,
        (n) => n + 1,
      ),
    );
    assert.ok(expect.length > 1);
    const rows = await tstats(
      'ssh',
      '| tstats count where index=$i "Failed password" by _time span=1h',
      'index=$i "Failed password" | bin _time span=1h | stats count by _time',
    );
    assert.deepEqual(
      rows.map(([t, n]) => [String(t).slice(5, 13), n]),
      expect,
    );
    const bySource = await tstats('ssh', '| tstats count where index=$i by source', 'index=$i | stats count by source');
    assert.deepEqual(bySource, [[FILES.ssh, ssh.length]]);
  });

  it('feeds later pipes and append subsearches', async () => {
    const ips = new Set(apache.map((a) => a.clientip)).size;
    const r = await both(
      'apache',
      '| tstats count where index=$i by clientip | stats count as ips, sum(count) as events',
    );
    assert.deepEqual(r.rows, [[ips, apache.length]]);
    const a = await search(
      'index=apache_sealed | stats count by sourcetype | append [| tstats count where index=ssh_live by sourcetype]',
    );
    assert.deepEqual(a.rows, [
      ['access_combined', apache.length],
      ['linux:secure', ssh.length],
    ]);
  });

  it('makeresults makes N rows stamped now, alone, annotated, after eval and in append', async () => {
    const now = new Date(Math.floor(st.clock.now() / 1000) * 1000);
    const one = await search('| makeresults');
    assert.deepEqual(one.columns, ['_time']);
    assert.deepEqual(one.rows, [[iso(now.getTime())]]);
    const three = await search('| makeresults count=3 | eval n=1 | stats sum(n) as total, count');
    assert.deepEqual(three.rows, [[3, 3]]);
    const ann = await search('| makeresults annotate=true');
    assert.deepEqual(ann.columns, ['_time', 'host', 'source', 'sourcetype', 'splunk_server', 'splunk_server_group']);
    assert.deepEqual(ann.rows, [[iso(now.getTime()), null, null, null, 'svc', null]]);
    const appended = await search(
      '| tstats count where index=apache_live by sourcetype | append [| makeresults | eval sourcetype="Other" | fields sourcetype]',
    );
    assert.deepEqual(appended.rows, [
      ['access_combined', apache.length],
      ['Other', null],
    ]);
  });
});
