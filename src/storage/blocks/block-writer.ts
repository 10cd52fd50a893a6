import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Bloom } from './bloom.js';
import { queryOn, ident, jsonKeyPath, lit } from '../duck.js';
import { columnType, kindOfJsonType } from './field-types.js';
import { blockDir, deleteBlockFiles, publishBlock, type Block } from './block-files.js';
import type { BlockField, BlockMeta } from './sidecar.js';
import { TOKEN_SPLIT_SQL, tokenHashSql } from './tokens.js';
import { dayString, partKey, type PartRow } from '../partition.js';
import { encodeMinuteCounts, minuteCountsOf } from './minute-counts.js';

/** At most this many user fields become Parquet columns per block; the rest stay in `_extra`. */
export const MAX_PROMOTED_FIELDS = 200;
/** Column names a user field can never take (compared lowercased: DuckDB names are case-insensitive). */
const RESERVED = new Set(['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message', '_extra', '_f', '_day']);

/** Where and under which names blocks are written. */
export interface BlockTarget {
  root: string;
  node: string;
  nextSeq: () => number;
}

/**
 * Writes one block per env/index/day found in `table`, a temp table with columns
 * `_time, env, "index", host, source, sourcetype, message, _f JSON, _day BIGINT`.
 * Returns the published blocks; the caller commits them to the catalog.
 */
export async function writeBlocks(
  c: DuckDBConnection,
  table: string,
  target: BlockTarget,
  extra: Pick<BlockMeta, 'walSeg' | 'replaces'>,
  knownFields?: FieldsByPart,
  knownParts?: PartRow[],
): Promise<Block[]> {
  // the live accounting already knows the partitions: asking DuckDB again costs a JSON pass
  // (writeOne checks each count against the rows it wrote)
  const parts = knownParts ?? (await partitionsOf(c, table));
  // the live accounting already knows the fields: asking DuckDB again costs a JSON pass
  const fields = knownFields ?? (await fieldsOf(c, table));
  const out: Block[] = [];
  try {
    for (const p of parts) {
      out.push(await writeOne(c, table, target, p, fields.get(partKey(p.env, p.index, p.day)) ?? [], extra));
    }
  } catch (e) {
    // a half-done seal must leave no published block behind: after a retry commits, a leftover
    // block with the same walSeg would look committed at the next start (a duplicate)
    for (const b of out) deleteBlockFiles(b);
    throw e;
  }
  return out;
}

/** Per partition key (partKey): its fields with kind bits and event counts. */
export type FieldsByPart = Map<string, { name: string; bits: number; count: number }[]>;

async function extentOf(c: DuckDBConnection, file: string): Promise<Pick<PartRow, 'count' | 'minUs' | 'maxUs'>> {
  const r = await queryOn(c, `SELECT count(*), epoch_us(min(_time)), epoch_us(max(_time)) FROM read_parquet(${lit(file)})`);
  const [count, minUs, maxUs] = r.rows[0] as number[];
  return { count, minUs, maxUs };
}

export async function partitionsOf(c: DuckDBConnection, table: string): Promise<PartRow[]> {
  const r = await queryOn(c, `SELECT env, "index", _day, count(*), epoch_us(min(_time)), epoch_us(max(_time)) FROM ${table} GROUP BY ALL ORDER BY ALL`);
  return r.rows.map(([env, index, day, count, minUs, maxUs]) => ({ env, index, day, count, minUs, maxUs }) as PartRow);
}

export async function fieldsOf(c: DuckDBConnection, table: string): Promise<FieldsByPart> {
  const r = await queryOn(
    c,
    `SELECT env, "index", _day, k, json_type(json_extract(_f, '$."' || replace(replace(k, '\\', '\\\\'), '"', '\\"') || '"')) AS t, count(*)
       FROM (SELECT env, "index", _day, _f, unnest(json_keys(_f)) AS k FROM ${table} WHERE _f IS NOT NULL)
      GROUP BY ALL`,
  );
  const byPart = new Map<string, Map<string, { name: string; bits: number; count: number }>>();
  for (const [env, index, day, name, t, n] of r.rows as [string, string, number, string, string, number][]) {
    const kind = kindOfJsonType(t);
    if (kind === 0) continue;
    const key = partKey(env, index, day);
    let m = byPart.get(key);
    if (!m) byPart.set(key, (m = new Map()));
    const f = m.get(name) ?? { name, bits: 0, count: 0 };
    f.bits |= kind;
    f.count += n;
    m.set(name, f);
  }
  return new Map([...byPart].map(([k, m]) => [k, [...m.values()]]));
}

/**
 * The token filter of one partition of `table`, built from DuckDB's distinct token hashes. The
 * hashes come over as two UINTEGER halves read straight from the result vectors: no BigInt per
 * token on the JS side.
 */
async function tokenFilterOf(c: DuckDBConnection, table: string, where: string): Promise<Bloom> {
  const h = tokenHashSql('tok');
  // two stages: a plain split on spaces and DISTINCT first, so the (10x dearer) regex split runs
  // once per distinct word instead of over every message; spaces are separators either way
  const result = await c.stream(
    `SELECT (${h} & 4294967295)::UINTEGER, (${h} >> 32)::UINTEGER FROM (
       SELECT DISTINCT unnest(regexp_split_to_array(w, ${TOKEN_SPLIT_SQL})) AS tok FROM (
         SELECT DISTINCT unnest(string_split(lower(message), ' ')) AS w FROM ${table} WHERE ${where}
       )
     ) WHERE tok <> ''`,
  );
  const lo: number[] = [];
  const hi: number[] = [];
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const a = chunk.getColumnVector(0);
    const b = chunk.getColumnVector(1);
    for (let i = 0; i < chunk.rowCount; i++) {
      lo.push(a.getItem(i) as number);
      hi.push(b.getItem(i) as number);
    }
  }
  const bloom = Bloom.forCount(lo.length);
  for (let i = 0; i < lo.length; i++) bloom.addHalves(lo[i], hi[i]);
  return bloom;
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

/** Field `i` (1-based) of `_x`, the list of every promoted field's string value (one JSON parse per row). */
function fieldExpr(f: BlockField, i: number): string {
  const s = `_x[${i}]`;
  return f.type === 'VARCHAR' ? `${s} AS ${ident(f.name)}` : `TRY_CAST(${s} AS ${f.type}) AS ${ident(f.name)}`;
}

/** One partition of `table` as one block: raw rows sorted by `_time`, promoted fields extracted while writing. */
async function writeOne(
  c: DuckDBConnection,
  table: string,
  target: BlockTarget,
  p: PartRow,
  found: { name: string; bits: number; count: number }[],
  origin: Pick<BlockMeta, 'walSeg' | 'replaces'>,
): Promise<Block> {
  const fields = chooseFields(found);
  const hasExtra = fields.some((f) => !f.promoted);
  const promoted = fields.filter((f) => f.promoted);
  // json_extract_string with a list of paths parses each row's JSON once, not once per field
  const extract = promoted.length > 0 ? `, json_extract_string(_f, [${promoted.map((f) => jsonKeyPath(f.name)).join(', ')}]) AS _x` : '';
  const cols = [
    '_time',
    'env',
    '"index"',
    "COALESCE(host, '') AS host",
    "COALESCE(source, '') AS source",
    "COALESCE(sourcetype, '') AS sourcetype",
    "COALESCE(message, '') AS message",
    ...promoted.map((f, i) => fieldExpr(f, i + 1)),
    ...(hasExtra ? ['_f::VARCHAR AS _extra'] : []),
  ];
  const where = `env = ${lit(p.env)} AND "index" = ${lit(p.index)} AND _day = ${p.day}`;
  return writeBlockFile(c, target, {
    env: p.env,
    index: p.index,
    day: dayString(p.day),
    fields,
    hasExtra,
    // sort first, extract fields after: sorting the extracted (wide) rows ran out of a 512 MB DuckDB
    // on a 64 MiB segment of Zeek events, sorting the raw JSON and extracting while writing does not
    select: `SELECT ${cols.join(', ')} FROM (SELECT *${extract} FROM (SELECT * FROM ${table} WHERE ${where} ORDER BY _time))`,
    tokens: { from: table, where },
    // the sidecar must describe the file: should a given count ever disagree, ask the file itself
    extent: async (written, tmp) => (written === p.count ? p : extentOf(c, tmp)),
    origin,
  });
}

/** Row groups of a block: their min/max `_time` statistics let DuckDB skip row groups by time. */
const BLOCK_ROW_GROUP = 122_880;

/** One block to write: what differs between a seal and a merge. writeBlockFile does the rest. */
export interface BlockFile {
  env: string;
  index: string;
  /** yyyy-mm-dd (UTC) of the event time. */
  day: string;
  fields: BlockField[];
  hasExtra: boolean;
  /** The block's rows in its columns, sorted by `_time` (the body of a COPY). */
  select: string;
  /** The rows the token filter is built from: a table expression and a condition on it. */
  tokens: { from: string; where: string };
  /** Count and time range for the sidecar, given the rows COPY wrote and the file it wrote. */
  extent: (written: number, tmp: string) => Promise<Pick<PartRow, 'count' | 'minUs' | 'maxUs'>>;
  /** Sealed: the WAL segment, replaces nothing. Merged: the newest input's segment and the inputs' names. */
  origin: Pick<BlockMeta, 'walSeg' | 'replaces'>;
}

/**
 * Writes and publishes one block: the Parquet file (ZSTD, sorted) to `<name>.parquet.tmp`, its
 * token filter and minute counts, then publishBlock (fsync, rename, sidecar written last). The one
 * path for seals and merges, so the file format, the sidecar and the commit order cannot drift
 * apart between them. Nothing is in the catalog until the caller commits the returned block.
 */
export async function writeBlockFile(c: DuckDBConnection, target: BlockTarget, f: BlockFile): Promise<Block> {
  const dir = blockDir(target.root, f.env, f.index, f.day);
  mkdirSync(dir, { recursive: true });
  const name = `${target.node}-${target.nextSeq()}`;
  const final = join(dir, `${name}.parquet`);
  const tmp = `${final}.tmp`;
  const written = await c.run(`COPY (${f.select}) TO ${lit(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${BLOCK_ROW_GROUP})`);
  const extent = await f.extent(written.rowsChanged, tmp);
  const bloom = await tokenFilterOf(c, f.tokens.from, f.tokens.where);
  // read back from the written file, so the counts describe exactly the rows a scan of it sees
  // (and a merge of inputs from before minute counts existed still gets them)
  const minutes = await minuteCountsOf(c, tmp);
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
    bloom: { m: bloom.m, b64: bloom.toBase64() },
    walSeg: f.origin.walSeg,
    replaces: f.origin.replaces,
    bytes: statSync(tmp).size,
    createdAt: Date.now(),
    minuteCounts: encodeMinuteCounts(minutes),
  };
  return publishBlock(tmp, final, meta);
}
