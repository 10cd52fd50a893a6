import type { DuckDBConnection } from '@duckdb/node-api';
import { queryOn, jsonKeyPath, jsonKeyPathSql } from '../duck.js';
import { ident, lit } from '../sql-quote.js';
import { kindOfJsonType } from './field-types.js';
import { deleteBlockFiles, type Block } from './block-files.js';
import type { BlockField, BlockMeta } from './sidecar.js';
import { dayString, partKey, type PartRow } from '../partition.js';
import { chooseFields, writeBlockFile, type BlockTarget } from './block-writer.js';

// The blocks of one seal: one per env/index/day partition of a WAL segment's rows, all or none.
// The rows have the seal's shape: `_time, env, "index", host, source, sourcetype, message, _f JSON,
// _day BIGINT` (raw fields still JSON; promoted ones are extracted while the block is written).

/**
 * Writes one block per env/index/day found in `table` (rows of the seal's shape, above).
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

/** Count and time range of a written block file, read from the file itself. */
async function extentOf(c: DuckDBConnection, file: string): Promise<Pick<PartRow, 'count' | 'minUs' | 'maxUs'>> {
  const r = await queryOn(
    c,
    `SELECT count(*), epoch_us(min(_time)), epoch_us(max(_time)) FROM read_parquet(${lit(file)})`,
  );
  // queryOn gives a BIGINT past 2^53 (a time after year 2255) as text: a sidecar holds numbers
  const [count, minUs, maxUs] = r.rows[0].map(Number);
  return { count, minUs, maxUs };
}

/** The partitions of `table` with their counts and time ranges (also WAL replay without a summary). */
export async function partitionsOf(c: DuckDBConnection, table: string): Promise<PartRow[]> {
  const r = await queryOn(
    c,
    `SELECT env, "index", _day, count(*), epoch_us(min(_time)), epoch_us(max(_time)) FROM ${table} GROUP BY ALL ORDER BY ALL`,
  );
  return r.rows.map(
    ([env, index, day, count, minUs, maxUs]) =>
      ({ env, index, day: Number(day), count: Number(count), minUs: Number(minUs), maxUs: Number(maxUs) }) as PartRow,
  );
}

/** The fields of each partition of `table`, from the `_f` JSON (also WAL replay without a summary). */
export async function fieldsOf(c: DuckDBConnection, table: string): Promise<FieldsByPart> {
  const r = await queryOn(
    c,
    `SELECT env, "index", _day, k, json_type(json_extract(_f, ${jsonKeyPathSql('k')})) AS t, count(*)
       FROM (SELECT env, "index", _day, _f, unnest(json_keys(_f)) AS k FROM ${table} WHERE _f IS NOT NULL)
      GROUP BY ALL`,
  );
  const byPart = new Map<string, Map<string, { name: string; bits: number; count: number }>>();
  for (const [env, index, day, name, t, n] of r.rows as [string, string, number, string, string, number][]) {
    const kind = kindOfJsonType(t);
    if (kind === 0) continue;
    const key = partKey(env, index, day);
    let m = byPart.get(key);
    if (!m) byPart.set(key, (m = new Map<string, { name: string; bits: number; count: number }>()));
    const f = m.get(name) ?? { name, bits: 0, count: 0 };
    f.bits |= kind;
    f.count += n;
    m.set(name, f);
  }
  return new Map([...byPart].map(([k, m]) => [k, [...m.values()]]));
}

/** Field `i` (1-based) of `_x`, the list of every promoted field's string value (one JSON parse per row). */
function fieldExpr(f: BlockField, i: number): string {
  const s = `_x[${i}]`;
  return f.type === 'VARCHAR' ? `${s} AS ${ident(f.name)}` : `TRY_CAST(${s} AS ${f.type}) AS ${ident(f.name)}`;
}

/** One partition of `table` as one block: raw rows sorted in block order, promoted fields extracted while writing. */
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
  const extract =
    promoted.length > 0
      ? `, json_extract_string(_f, [${promoted.map((f) => jsonKeyPath(f.name)).join(', ')}]) AS _x`
      : '';
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
    select: (orderBy) =>
      `SELECT ${cols.join(', ')} FROM (SELECT *${extract} FROM (SELECT * FROM ${table} WHERE ${where} ORDER BY ${orderBy}))`,
    rows: { from: `(SELECT _time FROM ${table} WHERE ${where})`, count: p.count },
    // the sidecar must describe the file: should a given count ever disagree, ask the file itself
    extent: async (written, tmp) => (written === p.count ? p : extentOf(c, tmp)),
    origin,
  });
}
