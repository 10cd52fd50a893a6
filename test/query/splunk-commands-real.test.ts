import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { accessLine, REAL_DATA, type AccessLine } from '../helpers/real-logs.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * The Splunk commands of issue 28 (`| search`, regex, convert, join, mvexpand, makemv) on a real
 * Apache access log (half in sealed blocks, half live), each answer compared with what this test
 * computes itself from the raw lines (its own parse of the combined format, not svc's).
 */
const DATA = REAL_DATA;
const FILE = join(DATA, 'elastic-examples-apache/apache_access_combined.log');
const present = existsSync(FILE);
if (!present) console.log(`# skipping the real-data Splunk command tests: no real data at ${DATA} (set SVC_REAL_DATA)`);

/** The test's own reading of one combined-format line. */
function access(line: string): AccessLine {
  const a = accessLine(line);
  assert.ok(a, `an access line: ${line}`);
  return a;
}

function countBy<T>(xs: T[], key: (x: T) => string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = key(x);
    if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}
/** Rows sorted as stats … by <one text field> gives them. */
const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('Splunk commands on a real Apache log', { skip: present ? false : `no real data at ${DATA}` }, () => {
  let st: TestStorage;
  let svc: QueryService;
  const rows = present
    ? readFileSync(FILE, 'utf8')
        .split(/\r?\n/)
        .filter((l) => l.length > 0)
        .map(access)
    : [];
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 10_000 });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const events: LogEvent[] = rows.map((r) => ({
      timeUs: r.ms * 1000,
      env: 'default',
      index: 'apache',
      host: 'www',
      source: 'apache_access_combined.log',
      sourcetype: 'access_combined',
      message: r.line,
      fields: {},
    }));
    await writeHalfSealed(st.engine, events);
  });
  after(() => st?.close());

  it('| search filters a stats table by count and by wildcard values', async () => {
    const r = await search('* | stats count by clientip | search count>100');
    assert.deepEqual(
      r.rows,
      sorted(countBy(rows, (x) => x.clientip)).filter(([, n]) => n > 100),
    );
    const w = await search('* | stats count by clientip | search clientip=66.249.* count>=10');
    const expect = sorted(countBy(rows, (x) => x.clientip)).filter(([ip, n]) => ip.startsWith('66.249.') && n >= 10);
    assert.ok(expect.length > 0);
    assert.deepEqual(w.rows, expect);
  });

  it('| search filters events by fields found in the line, with parentheses and NOT', async () => {
    const r = await search('* | search (status=404 OR status=500) NOT method=GET | stats count');
    assert.deepEqual(r.rows, [
      [rows.filter((x) => (x.status === '404' || x.status === '500') && x.method !== 'GET').length],
    ]);
    const t = await search('* | search status=404 method=GET wp-login.php | stats count');
    const expect = rows.filter((x) => x.status === '404' && x.method === 'GET' && /wp-login\.php/i.test(x.line)).length;
    assert.ok(expect > 0);
    assert.deepEqual(t.rows, [[expect]]);
  });

  it('regex keeps the lines whose field matches, != the others', async () => {
    const bots = await search('* | regex useragent="(?i)bot" | stats count');
    assert.deepEqual(bots.rows, [[rows.filter((x) => x.useragent !== undefined && /bot/i.test(x.useragent)).length]]);
    const pages = await search('* | regex uri!="\\.(png|jpg|gif|css|js|ico)$" | stats count');
    assert.deepEqual(pages.rows, [[rows.filter((x) => !/\.(png|jpg|gif|css|js|ico)$/.test(x.uri ?? '')).length]]);
  });

  it("convert ctime shows the last 404 of each client in Splunk's default format (UTC)", async () => {
    const r = await search(
      'status=404 | stats max(_time) as last by clientip | convert ctime(last) as LastTime | fields clientip, LastTime',
    );
    const last = new Map<string, number>();
    for (const x of rows) if (x.status === '404') last.set(x.clientip, Math.max(last.get(x.clientip) ?? 0, x.ms));
    const fmt = (ms: number) => {
      const d = new Date(ms);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
    };
    assert.deepEqual(
      r.rows,
      [...last].sort(([a], [b]) => (a < b ? -1 : 1)).map(([ip, ms]) => [ip, fmt(ms)]),
    );
  });

  it("join puts each client's 200s beside its 404s (inner and left)", async () => {
    const nf = countBy(rows, (x) => (x.status === '404' ? x.clientip : undefined));
    const ok = countBy(rows, (x) => (x.status === '200' ? x.clientip : undefined));
    const inner = await search(
      'status=404 | stats count as nf by clientip | join clientip [search status=200 | stats count as ok by clientip]',
    );
    assert.deepEqual(
      inner.rows,
      sorted(nf)
        .filter(([ip]) => ok.has(ip))
        .map(([ip, n]) => [ip, n, ok.get(ip)]),
    );
    const left = await search(
      'status=404 | stats count as nf by clientip | join type=left clientip [search status=200 | stats count as ok by clientip]',
    );
    assert.deepEqual(
      left.rows,
      sorted(nf).map(([ip, n]) => [ip, n, ok.get(ip) ?? null]),
    );
  });

  it('mvexpand makes a row per status of each client; makemv splits paths', async () => {
    const r = await search('status>=400 | stats values(status) as st by clientip | mvexpand st | stats count by st');
    const pairs = new Set(rows.filter((x) => Number(x.status) >= 400).map((x) => `${x.clientip} ${x.status}`));
    assert.deepEqual(r.rows, sorted(countBy([...pairs], (p) => p.split(' ')[1])));
    const parts = await search('status=404 | makemv delim="/" uri | mvexpand uri | stats count by uri');
    const expect = countBy(
      rows.filter((x) => x.status === '404').flatMap((x) => (x.uri ?? '').split('/').filter((s) => s !== '')),
      (s) => s,
    );
    assert.deepEqual(parts.rows, sorted(expect));
  });
});
