import { DOUBLE, DuckDBScalarFunction, STRUCT, VARCHAR, structValue, type DuckDBConnection } from '@duckdb/node-api';
import { locateIp, type IpLocation } from './ip-database.js';

/** The SQL function `iplocation` compiles to: an address as text → STRUCT(city, country, region, lat, lon). */
export const IPLOCATION_SQL_FUNCTION = 'svc_iplocation';

/** Addresses looked up lately; logs repeat their clients, and one lookup walks the whole tree. */
const CACHE_MAX = 10_000;
const cache = new Map<string, IpLocation | undefined>();

function cached(ip: string): IpLocation | undefined {
  if (cache.has(ip)) return cache.get(ip);
  if (cache.size >= CACHE_MAX) cache.clear();
  const loc = locateIp(ip);
  cache.set(ip, loc);
  return loc;
}

/**
 * Registers the function with the instance of `c` (DuckDB keeps it in the catalog, for every
 * connection). Registering reads nothing: the database files are read at the first address
 * (ip-database.ts). Volatile, so that DuckDB never inlines the projection that calls it into each
 * field that reads its result (a simple stage calls it once a row either way, measured).
 */
export function registerIplocation(c: DuckDBConnection): void {
  c.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: IPLOCATION_SQL_FUNCTION,
      returnType: STRUCT({ city: VARCHAR, country: VARCHAR, region: VARCHAR, lat: DOUBLE, lon: DOUBLE }),
      parameterTypes: [VARCHAR],
      specialHandling: true,
      volatile: true,
      mainFunction: (info, input, output) => {
        try {
          const ips = input.getColumnVector(0);
          for (let i = 0; i < input.rowCount; i++) {
            const ip = ips.getItem(i);
            const loc = typeof ip === 'string' ? cached(ip.trim()) : undefined;
            output.setItem(i, loc ? structValue({ ...loc }) : null);
          }
          output.flush();
        } catch (e) {
          // a file that cannot be read fails the statement, not the process
          info.setError(`iplocation: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    }),
  );
}
