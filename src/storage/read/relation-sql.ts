import { fieldColumn } from '../../events/field-column.js';
import { jsonKeyPath } from '../duck.js';
import { ident, lit } from '../sql-quote.js';
import type { Block } from '../blocks/block-files.js';
import { liveRowsSql } from '../wal/live-columns.js';
import type { ScanSpec } from '../types.js';
import { CORE, type ScanPlan } from './scan-plan.js';

// The relation a scan hands the query layer (docs/storage.md, "Read path"): the kept blocks'
// Parquet files UNION ALL the live segments' rows (WAL files or their columnar copies), every field column typed the same on both
// sides and NULL where absent. A field's column is named by fieldColumn (`Foo` → `Foo\u00010`), so
// names equal but for case stay apart in DuckDB, whose identifiers ignore case.

/** The quoted relation column of field `name`. */
function fieldIdent(name: string): string {
  return ident(fieldColumn(name));
}

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
    cols.push(`${e} AS ${fieldIdent(name)}`);
  }
  const extraSql =
    extraNames.length > 0 ? `, json_extract_string(_extra, [${extraNames.map(jsonKeyPath).join(', ')}]) AS _xe` : '';
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
  const rows = ranges.map(([first, last]) =>
    first === last ? `file_row_number = ${first}` : `file_row_number BETWEEN ${first} AND ${last}`,
  );
  const where = [`(${rows.join(' OR ')})`, ...timeFilter(spec, '_time')];
  return `SELECT ${cols.join(', ')} FROM (SELECT *${extraSql} FROM read_parquet(${lit(b.path)}, file_row_number = true) WHERE ${where.join(' AND ')})`;
}

function blocksSql(plan: ScanPlan, spec: ScanSpec): string[] {
  const whole = plan.blocks.filter((b) => !plan.rows.has(b));
  const parts = [...plan.rows].map(([b, ranges]) => blockRowsSql(b, ranges, plan, spec));
  parts.unshift(...apartByCase(whole).map((g) => wholeBlocksSql(g, plan, spec)));
  return parts;
}

/**
 * Blocks in groups that one read_parquet(union_by_name) may read together: no two blocks of a group
 * promote names equal but for ASCII case (`Foo` in one, `foo` in another), which it would read as one
 * column, giving one block's values the other's name. Nearly always one group.
 */
function apartByCase(blocks: Block[]): Block[][] {
  // fast path: two such names need an ASCII capital in one of them; most scans' blocks promote none
  const lowers = new Set<string>();
  for (const b of blocks) for (const [lower] of caseInfo(b).capitals) lowers.add(lower);
  if (lowers.size === 0) return blocks.length > 0 ? [blocks] : [];
  const groups: { blocks: Block[]; names: Map<string, string> }[] = [];
  for (const b of blocks) {
    const info = caseInfo(b);
    const own: [string, string][] = [...info.capitals];
    for (const l of lowers) if (info.names.has(l)) own.push([l, l]);
    let g = groups.find((x) => own.every(([l, n]) => (x.names.get(l) ?? n) === n));
    if (!g) groups.push((g = { blocks: [], names: new Map() }));
    g.blocks.push(b);
    for (const [l, n] of own) g.names.set(l, n);
  }
  return groups.map((g) => g.blocks);
}

/** A block's promoted names, and those with an ASCII capital as [lower case, name]: once per block, scans come often. */
const CASE_INFO = new WeakMap<Block, { names: Set<string>; capitals: [string, string][] }>();

function caseInfo(b: Block): { names: Set<string>; capitals: [string, string][] } {
  let info = CASE_INFO.get(b);
  if (!info) {
    const names = new Set(b.meta.fields.filter((f) => f.promoted).map((f) => f.name));
    // lower case as DuckDB compares identifiers: ASCII letters only
    const capitals = [...names]
      .filter((n) => /[A-Z]/.test(n))
      .map((n): [string, string] => [n.replace(/[A-Z]+/g, (m) => m.toLowerCase()), n]);
    CASE_INFO.set(b, (info = { names, capitals }));
  }
  return info;
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
      return `${t === 'VARCHAR' ? s : `TRY_CAST(${s} AS ${t})`} AS ${fieldIdent(n)}`;
    }),
  ];
  const where = [`env IN (${spec.envs.map(lit).join(', ')})`, ...timeFilter(spec, '_time')];
  if (spec.indexes !== null)
    where.push(spec.indexes.length ? `"index" IN (${spec.indexes.map(lit).join(', ')})` : 'false');
  // every field from one parse of the row's JSON (a list of paths): one json_extract_string per
  // field parsed the object once per field, and DuckDB keeps each parse until its chunk is done, so
  // 300 fields of a few megabyte-long events needed more than the memory limit
  const x =
    fields.length > 0 ? `, json_extract_string(_f, [${fields.map(([n]) => jsonKeyPath(n)).join(', ')}]) AS _x` : '';
  return `SELECT ${cols.join(', ')} FROM (SELECT *${x} FROM ${liveRowsSql(plan.live.map((l) => l.seg))} WHERE ${where.join(' AND ')})`;
}

function emptySql(plan: ScanPlan): string {
  const cols = [
    'NULL::TIMESTAMP AS _time',
    ...CORE.slice(1).map((c) => `NULL::VARCHAR AS ${ident(c)}`),
    ...[...plan.fields].map(([n, t]) => `NULL::${t} AS ${fieldIdent(n)}`),
  ];
  return `SELECT ${cols.join(', ')} WHERE false`;
}

/**
 * One block as the relation a search of `spec` reads (the same columns, the same time filter),
 * plus `_drow`, each row's `file_row_number`: a delete (storage/deleting.ts) runs the search's own
 * WHERE over it to learn which rows of the file to drop.
 */
export function numberedBlockSql(b: Block, plan: ScanPlan, spec: TimeRange): string {
  const { cols, extraSql } = blockColumns([b], plan);
  const where = timeFilter(spec, '_time');
  return `(SELECT ${cols.join(', ')}, file_row_number AS _drow FROM (SELECT *${extraSql} FROM read_parquet(${lit(b.path)}, file_row_number = true)${where.length ? ' WHERE ' + where.join(' AND ') : ''}))`;
}

/** The relation SQL for a plan: blocks UNION ALL live, or an empty relation with the same columns. */
export function relationSql(plan: ScanPlan, spec: ScanSpec): string {
  const parts: string[] = [];
  if (plan.blocks.length > 0) parts.push(...blocksSql(plan, spec));
  if (plan.live.length > 0) parts.push(liveSql(plan, spec));
  if (parts.length === 0) parts.push(emptySql(plan));
  return `(${parts.join(' UNION ALL ')})`;
}
