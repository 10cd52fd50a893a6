import type { DuckDBConnection } from '@duckdb/node-api';
import { queryOn } from '../duck.js';
import { lit } from '../sql-quote.js';

// Events per value of a block's host, source and sourcetype, kept in its sidecar so that
// `* | stats count by host` (or source, sourcetype) is answered from sidecars for every block the
// search's range holds whole (read/value-counts.ts), the way minute counts answer a timechart.

/** The columns counted. */
export const VALUE_COUNT_COLUMNS = ['host', 'source', 'sourcetype'] as const;
export type ValueCountColumn = (typeof VALUE_COUNT_COLUMNS)[number];

/** A column with more distinct values in a block is not counted (its sidecar would grow like the data). */
export const VALUE_COUNTS_MAX = 1000;

/** Per column: the values and their events, in parallel arrays. */
export type ValueCountsJson = Partial<Record<ValueCountColumn, { v: string[]; n: number[] }>>;

/** The counts of `maps` (value → events per column), leaving out a column with too many values. */
export function encodeValueCounts(maps: Partial<Record<ValueCountColumn, Map<string, number>>>): ValueCountsJson {
  const out: ValueCountsJson = {};
  for (const col of VALUE_COUNT_COLUMNS) {
    const m = maps[col];
    if (!m || m.size > VALUE_COUNTS_MAX) continue;
    out[col] = { v: [...m.keys()], n: [...m.values()] };
  }
  return out;
}

/** Read from a written block file: one pass over the three (dictionary-encoded) columns. */
export async function valueCountsOf(c: DuckDBConnection, parquet: string): Promise<ValueCountsJson> {
  const r = await queryOn(
    c,
    `SELECT host, source, sourcetype, GROUPING(host, source, sourcetype), count(*) FROM read_parquet(${lit(parquet)})
      GROUP BY GROUPING SETS ((host), (source), (sourcetype))`,
  );
  const maps: Record<ValueCountColumn, Map<string, number>> = {
    host: new Map(),
    source: new Map(),
    sourcetype: new Map(),
  };
  // GROUPING(host, source, sourcetype) has a bit set for each column not grouped: 3 → host, 5 → source, 6 → sourcetype
  const byBits: Record<number, ValueCountColumn> = { 3: 'host', 5: 'source', 6: 'sourcetype' };
  for (const [host, source, sourcetype, bits, n] of r.rows as [string, string, string, number, number][]) {
    const col = byBits[Number(bits)];
    if (!col) continue;
    const v = { host, source, sourcetype }[col] ?? '';
    maps[col].set(v, Number(n));
  }
  return encodeValueCounts(maps);
}
