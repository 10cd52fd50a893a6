import type { DuckDBConnection } from '@duckdb/node-api';
import { lit } from '../sql-quote.js';
import { Bloom } from './bloom.js';
import { TOKEN_SPLIT_SQL, tokenHashSql } from './tokens.js';

// A block's token filters: one per granule of GRANULE_ROWS consecutive rows of the file. A token
// absent from every granule is absent from the block (the block is skipped); otherwise only the
// granules that may hold it are read. No filter over the whole block: it would hold the same
// tokens again and double the sidecar. A scan that needs a rare token
// reads only the granules whose filter may hold it, through `file_row_number` ranges that DuckDB
// turns into skipped Parquet row groups (read/relation-sql.ts); so a rare term costs a few row
// groups, not a whole day of events.

/**
 * Rows per granule, and the Parquet row group size of a block (block-writer.ts): a granule is then
 * exactly one row group, the unit DuckDB skips. Smaller granules read less for a rare token, larger
 * ones compress better (the block order sorts by source and host inside a row group): on 1M events
 * of 7 days, blocks plus sidecars were 1.21 × zstd -3's ratio with 16,384 rows, 1.30 × with 65,536,
 * while one 65,536-row group still reads in a few ms (docs/storage.md, issue 14).
 */
export const GRANULE_ROWS = 65_536;

export interface TokenFilters {
  /** Granule i covers the file's rows [i × GRANULE_ROWS, (i + 1) × GRANULE_ROWS). */
  granules: Bloom[];
}

/**
 * Builds the filters from the written Parquet file itself, so granule i describes exactly the rows
 * a scan finds at those row numbers. DuckDB splits and hashes; the hashes come over as two
 * UINTEGER halves read straight from the result vectors (no BigInt per token on the JS side).
 */
export async function tokenFiltersOf(c: DuckDBConnection, parquet: string, count: number): Promise<TokenFilters> {
  const h = tokenHashSql('tok');
  // two stages: a plain split on spaces and DISTINCT first, so the (10x dearer) regex split runs
  // once per distinct word of a granule instead of over every message
  const result = await c.stream(
    `SELECT g::UINTEGER, (${h} & 4294967295)::UINTEGER, (${h} >> 32)::UINTEGER FROM (
       SELECT DISTINCT g, unnest(regexp_split_to_array(w, ${TOKEN_SPLIT_SQL})) AS tok FROM (
         SELECT DISTINCT file_row_number // ${GRANULE_ROWS} AS g, unnest(string_split(lower(message), ' ')) AS w
         FROM read_parquet(${lit(parquet)}, file_row_number = true)
       )
     ) WHERE tok <> ''`,
  );
  const granuleCount = Math.max(1, Math.ceil(count / GRANULE_ROWS));
  const g: number[] = [];
  const lo: number[] = [];
  const hi: number[] = [];
  const perGranule = new Array<number>(granuleCount).fill(0);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const gv = chunk.getColumnVector(0);
    const a = chunk.getColumnVector(1);
    const b = chunk.getColumnVector(2);
    for (let i = 0; i < chunk.rowCount; i++) {
      const gi = gv.getItem(i) as number;
      g.push(gi);
      lo.push(a.getItem(i) as number);
      hi.push(b.getItem(i) as number);
      perGranule[gi]++;
    }
  }
  const granules = perGranule.map((n) => Bloom.forCount(n));
  for (let i = 0; i < lo.length; i++) granules[g[i]].addHalves(lo[i], hi[i]);
  return { granules };
}
