import { ident, jsonKeyPath, lit } from '../duck.js';
import type { Block } from '../blocks/block-files.js';
import { liveRowsSql } from '../wal/live-columns.js';
import type { ScanSpec } from '../types.js';
import { CORE, type ScanPlan } from './scan-plan.js';

// The relation a scan hands the query layer (docs/storage.md, "Read path"): the kept blocks'
// Parquet files UNION ALL the live segments' rows (WAL files or their columnar copies), every field column typed the same on both
// sides and NULL where absent.

type TimeRange = Pick<ScanSpec, 'fromUs' | 'toUs'>;

function timeFilter(spec: TimeRange, col: string): string[] {
  const v = (us: number) => `make_timestamp(${us})`;
  const out: string[] = [];
  if (spec.fromUs !== undefined) out.push(`${col} >= ${v(Math.floor(spec.fromUs))}`);
  if (spec.toUs !== undefined) out.push(`${col} < ${v(Math.ceil(spec.toUs))}`);
  return out;
}

/**
 * The columns of blocks read together: the core ones, then each field from its Parquet column
 * where a block promoted it, else from the block's `_extra` JSON. Every `_extra` field comes from
 * one parse of that JSON per row (`_xe`, a list, made by `extraSql` under these columns), as live
 * rows do: one json_extract_string per field kept every parse until its chunk was done.
 */
function blockColumns(blocks: Block[], plan: ScanPlan): { cols: string[]; extraSql: string } {
  const cols = CORE.map(ident);
  const extraNames: string[] = [];
  for (const [name, type] of plan.fields) {
    let promoted = false;
    let extra = false;
    for (const b of blocks) {
      const f = b.meta.fields.find((x) => x.name === name);
      if (f?.promoted) promoted = true;
      else if (f) extra = true;
    }
    const parts: string[] = [];
    if (promoted) parts.push(`TRY_CAST(${ident(name)} AS ${type})`);
    if (extra) parts.push(`TRY_CAST(_xe[${extraNames.push(name)}] AS ${type})`);
    const e = parts.length === 0 ? `NULL::${type}` : parts.length === 1 ? parts[0] : `COALESCE(${parts.join(', ')})`;
    cols.push(`${e} AS ${ident(name)}`);
  }
  const extraSql = extraNames.length > 0 ? `, json_extract_string(_extra, [${extraNames.map(jsonKeyPath).join(', ')}]) AS _xe` : '';
  return { cols, extraSql };
}

/** Blocks read whole: one read_parquet over all their files. */
function wholeBlocksSql(blocks: Block[], plan: ScanPlan, spec: ScanSpec): string {
  const files = blocks.map((b) => lit(b.path)).join(', ');
  const { cols, extraSql } = blockColumns(blocks, plan);
  const where = timeFilter(spec, '_time');
  return `SELECT ${cols.join(', ')} FROM (SELECT *${extraSql} FROM read_parquet([${files}], union_by_name=true)${where.length ? ' WHERE ' + where.join(' AND ') : ''})`;
}

/**
 * One block read in part: only the row ranges its granule filters keep. DuckDB compares the
 * `file_row_number` ranges with each row group's and skips the row groups outside them.
 */
function blockRowsSql(b: Block, ranges: [number, number][], plan: ScanPlan, spec: ScanSpec): string {
  const { cols, extraSql } = blockColumns([b], plan);
  const rows = ranges.map(([first, last]) => (first === last ? `file_row_number = ${first}` : `file_row_number BETWEEN ${first} AND ${last}`));
  const where = [`(${rows.join(' OR ')})`, ...timeFilter(spec, '_time')];
  return `SELECT ${cols.join(', ')} FROM (SELECT *${extraSql} FROM read_parquet(${lit(b.path)}, file_row_number = true) WHERE ${where.join(' AND ')})`;
}

function blocksSql(plan: ScanPlan, spec: ScanSpec): string[] {
  const whole = plan.blocks.filter((b) => !plan.rows.has(b));
  const parts = [...plan.rows].map(([b, ranges]) => blockRowsSql(b, ranges, plan, spec));
  if (whole.length > 0) parts.unshift(wholeBlocksSql(whole, plan, spec));
  return parts;
}

function liveSql(plan: ScanPlan, spec: ScanSpec): string {
  const fields = [...plan.fields];
  const cols = [
    '_time',
    'env',
    '"index"',
    ...['host', 'source', 'sourcetype', 'message'].map((c) => `COALESCE(${c}, '') AS ${c}`),
    ...fields.map(([n, t], i) => {
      const s = `_x[${i + 1}]`;
      return `${t === 'VARCHAR' ? s : `TRY_CAST(${s} AS ${t})`} AS ${ident(n)}`;
    }),
  ];
  const where = [`env IN (${spec.envs.map(lit).join(', ')})`, ...timeFilter(spec, '_time')];
  if (spec.indexes !== null) where.push(spec.indexes.length ? `"index" IN (${spec.indexes.map(lit).join(', ')})` : 'false');
  // every field from one parse of the row's JSON (a list of paths): one json_extract_string per
  // field parsed the object once per field, and DuckDB keeps each parse until its chunk is done, so
  // 300 fields of a few megabyte-long events needed more than the memory limit
  const x = fields.length > 0 ? `, json_extract_string(_f, [${fields.map(([n]) => jsonKeyPath(n)).join(', ')}]) AS _x` : '';
  return `SELECT ${cols.join(', ')} FROM (SELECT *${x} FROM ${liveRowsSql(plan.live.map((l) => l.seg))} WHERE ${where.join(' AND ')})`;
}

function emptySql(plan: ScanPlan): string {
  const cols = ['NULL::TIMESTAMP AS _time', ...CORE.slice(1).map((c) => `NULL::VARCHAR AS ${ident(c)}`), ...[...plan.fields].map(([n, t]) => `NULL::${t} AS ${ident(n)}`)];
  return `SELECT ${cols.join(', ')} WHERE false`;
}

/** The relation SQL for a plan: blocks UNION ALL live, or an empty relation with the same columns. */
export function relationSql(plan: ScanPlan, spec: ScanSpec): string {
  const parts: string[] = [];
  if (plan.blocks.length > 0) parts.push(...blocksSql(plan, spec));
  if (plan.live.length > 0) parts.push(liveSql(plan, spec));
  if (parts.length === 0) parts.push(emptySql(plan));
  return `(${parts.join(' UNION ALL ')})`;
}
