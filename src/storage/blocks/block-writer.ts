import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { lit } from '../sql-quote.js';
import { columnType } from './field-types.js';
import { blockDir, publishBlock, type Block } from './block-files.js';
import type { BlockField, BlockMeta } from './sidecar.js';
import { GRANULE_ROWS, tokenFiltersOf } from './token-filters.js';
import type { PartRow } from '../partition.js';
import { encodeMinuteCounts, minuteCountsOf } from './minute-counts.js';
import { valueCountsOf } from './value-counts.js';

// Writing one block file, shared by seals (seal-blocks.ts) and merges (merge.ts): the rule that
// picks the promoted field columns, the Parquet file, its token filters and minute counts, the sidecar.

/** At most this many user fields become Parquet columns per block; the rest stay in `_extra`. */
export const MAX_PROMOTED_FIELDS = 200;
/** Column names a user field can never take (compared lowercased: DuckDB names are case-insensitive). */
const RESERVED = new Set([
  '_time',
  'env',
  'index',
  'host',
  'source',
  'sourcetype',
  'message',
  '_extra',
  '_f',
  '_day',
  '_xe',
  'file_row_number',
]);

/** Where and under which names blocks are written. */
export interface BlockTarget {
  root: string;
  node: string;
  nextSeq: () => number;
}

/**
 * Row groups of a block: one per granule of the token filters (token-filters.ts), so DuckDB skips
 * the row groups a filter rules out; their min/max `_time` statistics also let it skip by time.
 */
const BLOCK_ROW_GROUP = GRANULE_ROWS;

/**
 * The COPY options of every block. Parquet V2 gives `_time` DELTA_BINARY_PACKED (about a tenth of
 * its PLAIN size); ZSTD level 6 meets issue 14's goal on every shape measured at about half the
 * extra seal CPU of level 9 (5–10 % smaller still): docs/storage.md, "Compression (issue 14)".
 */
export const BLOCK_COPY_OPTIONS = `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 6, ROW_GROUP_SIZE ${BLOCK_ROW_GROUP}, PARQUET_VERSION V2`;

/**
 * The ORDER BY of a block of `rows` events, the rows of `from` (a table expression with `_time`).
 * Row groups hold the same events as in plain `_time` order (so their `_time` statistics prune a
 * short time range as well as before), but inside a row group the events go by source, host, time,
 * putting alike lines side by side for ZSTD. The cuts are the `_time` of every row group's first
 * row, read with one narrow pass over `_time`: an exact `row_number()` over the wide rows doubled
 * the COPY's CPU. A tie of equal times across a cut moves a few rows to the neighbouring row group
 * (widening only its statistics).
 */
export async function blockOrderBy(
  c: DuckDBConnection,
  from: string,
  rows: number,
  rowGroup = BLOCK_ROW_GROUP,
): Promise<string> {
  // fast path: one row group, its statistics are the block's; no cut to find
  if (rows <= rowGroup) return 'source, host, _time';
  const r = await c.runAndReadAll(
    `SELECT epoch_us(_time) FROM (SELECT _time, row_number() OVER (ORDER BY _time) AS rn FROM ${from}) WHERE rn % ${rowGroup} = 1 AND rn > 1 ORDER BY 1`,
  );
  const cuts = (r.getRows() as [bigint][]).map(([us]) => `(_time >= make_timestamp(${us}))::INT`);
  return cuts.length === 0 ? 'source, host, _time' : `${cuts.join(' + ')}, source, host, _time`;
}

/** One block to write: what differs between a seal and a merge. writeBlockFile does the rest. */
export interface BlockFile {
  env: string;
  index: string;
  /** yyyy-mm-dd (UTC) of the event time. */
  day: string;
  fields: BlockField[];
  hasExtra: boolean;
  /** The block's rows in its columns, in the given ORDER BY (the body of a COPY). */
  select: (orderBy: string) => string;
  /** The block's rows (a table expression with `_time`) and their number, for its order (blockOrderBy). */
  rows: { from: string; count: number };
  /** Count and time range for the sidecar, given the rows COPY wrote and the file it wrote. */
  extent: (written: number, tmp: string) => Promise<Pick<PartRow, 'count' | 'minUs' | 'maxUs'>>;
  /** Sealed: the WAL segment, replaces nothing. Merged: the newest input's segment and the inputs' names. */
  origin: Pick<BlockMeta, 'walSeg' | 'replaces'>;
}

/**
 * Writes and publishes one block: the Parquet file (ZSTD, in block order) to `<name>.parquet.tmp`, its granule
 * token filters and minute counts, then publishBlock (fsync, rename, sidecar written last). The one
 * path for seals and merges, so the file format, the sidecar and the commit order cannot drift
 * apart between them. Nothing is in the catalog until the caller commits the returned block.
 */
export async function writeBlockFile(c: DuckDBConnection, target: BlockTarget, f: BlockFile): Promise<Block> {
  const dir = blockDir(target.root, f.env, f.index, f.day);
  mkdirSync(dir, { recursive: true });
  const name = `${target.node}-${target.nextSeq()}`;
  const final = join(dir, `${name}.parquet`);
  const tmp = `${final}.tmp`;
  const order = await blockOrderBy(c, f.rows.from, f.rows.count);
  const written = await c.run(`COPY (${f.select(order)}) TO ${lit(tmp)} (${BLOCK_COPY_OPTIONS})`);
  const extent = await f.extent(written.rowsChanged, tmp);
  const filters = await tokenFiltersOf(c, tmp, extent.count);
  // read back from the written file, so the counts describe exactly the rows a scan of it sees
  // (and a merge of inputs from before minute counts existed still gets them)
  const minutes = await minuteCountsOf(c, tmp);
  const valueCounts = await valueCountsOf(c, tmp);
  const meta: BlockMeta = {
    v: 1,
    name,
    env: f.env,
    index: f.index,
    day: f.day,
    count: extent.count,
    minUs: extent.minUs,
    maxUs: extent.maxUs,
    fields: f.fields,
    hasExtra: f.hasExtra,
    granules: {
      rows: GRANULE_ROWS,
      m: filters.granules.map((b) => b.m),
      b64: filters.granules.map((b) => b.toBase64()),
    },
    walSeg: f.origin.walSeg,
    replaces: f.origin.replaces,
    bytes: statSync(tmp).size,
    createdAt: Date.now(),
    minuteCounts: encodeMinuteCounts(minutes),
    valueCounts,
  };
  return publishBlock(tmp, final, meta);
}

/** Chooses the promoted fields: most frequent first, no reserved or case-colliding names. */
export function chooseFields(found: { name: string; bits: number; count: number }[]): BlockField[] {
  const sorted = [...found].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
  const taken = new Set<string>();
  return sorted.map((f) => {
    const lower = f.name.toLowerCase();
    const promoted = taken.size < MAX_PROMOTED_FIELDS && !RESERVED.has(lower) && !taken.has(lower);
    if (promoted) taken.add(lower);
    return { name: f.name, type: columnType(f.bits), count: f.count, promoted };
  });
}
