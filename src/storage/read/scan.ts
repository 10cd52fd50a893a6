import type { Block } from '../blocks/block-files.js';
import type { LiveSegment, LivePartition } from '../wal/live-segment.js';
import { walReadSql } from '../wal/wal-line.js';
import { bitsOfColumnType, columnType, summaryType, type ColumnType } from '../blocks/field-types.js';
import { ident, jsonKeyPath, lit } from '../duck.js';
import { tokenPieces } from '../blocks/tokens.js';
import type { FieldSummary, PartitionSummary, ScanSpec } from '../types.js';

const CORE = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'];
const CORE_LOWER = new Set([...CORE, '_extra']);

/** What a scan reads: the chosen blocks and the live partitions (with their segment files). */
export interface ScanPlan {
  blocks: Block[];
  live: { seg: LiveSegment; parts: LivePartition[] }[];
  /** Field column name → column type, in output order. */
  fields: Map<string, ColumnType>;
  candidateEvents: number;
}

type TimeRange = Pick<ScanSpec, 'fromUs' | 'toUs'>;

function inScope(spec: Pick<ScanSpec, 'envs' | 'indexes'>, env: string, index: string): boolean {
  return spec.envs.includes(env) && (spec.indexes === null || spec.indexes.includes(index));
}

function overlaps(t: TimeRange, minUs: number, maxUs: number): boolean {
  return (t.fromUs === undefined || maxUs >= t.fromUs) && (t.toUs === undefined || minUs < t.toUs);
}

/** A block is kept unless its token filter proves one of the required tokens absent. */
function mayMatchTokens(b: Block, required: string[]): boolean {
  for (const t of required) for (const piece of tokenPieces(t)) if (!b.bloom.mightContain(piece)) return false;
  return true;
}

export function selectBlocks(all: Iterable<Block>, spec: Omit<ScanSpec, 'fields'>): Block[] {
  const out: Block[] = [];
  for (const b of all) {
    const m = b.meta;
    if (inScope(spec, m.env, m.index) && overlaps(spec, m.minUs, m.maxUs) && mayMatchTokens(b, spec.requiredTokens)) out.push(b);
  }
  return out;
}

export function selectLive(segs: Iterable<LiveSegment>, spec: Omit<ScanSpec, 'fields' | 'requiredTokens'>): ScanPlan['live'] {
  const out: ScanPlan['live'] = [];
  for (const seg of segs) {
    const parts = [...seg.partitions.values()].filter((p) => inScope(spec, p.env, p.index) && overlaps(spec, p.minUs, p.maxUs));
    if (parts.length > 0) out.push({ seg, parts });
  }
  return out;
}

/** Field name → kind bits and events, over blocks and live partitions; core-colliding names left out. */
export function collectFields(blocks: Block[], live: ScanPlan['live']): Map<string, { bits: number; count: number }> {
  const acc = new Map<string, { bits: number; count: number }>();
  const add = (name: string, bits: number, count: number) => {
    const f = acc.get(name);
    if (f) {
      f.bits |= bits;
      f.count += count;
    } else acc.set(name, { bits, count });
  };
  for (const b of blocks) for (const f of b.meta.fields) add(f.name, bitsOfColumnType(f.type), f.count);
  for (const l of live) for (const p of l.parts) for (const [name, f] of p.fields) add(name, f.bits, f.count);
  return acc;
}

export function planScan(blocks: Iterable<Block>, segs: Iterable<LiveSegment>, spec: ScanSpec): ScanPlan {
  const kept = selectBlocks(blocks, spec);
  const live = selectLive(segs, spec);
  const seen = collectFields(kept, live);
  const names = spec.fields === '*' ? [...seen.keys()].sort() : spec.fields;
  const fields = new Map<string, ColumnType>();
  const taken = new Set<string>();
  for (const n of names) {
    const lower = n.toLowerCase();
    // DuckDB names are case-insensitive: a field cannot shadow a core column or another field
    if (CORE_LOWER.has(lower) || taken.has(lower)) continue;
    taken.add(lower);
    fields.set(n, columnType(seen.get(n)?.bits ?? 1));
  }
  let candidateEvents = 0;
  for (const b of kept) candidateEvents += b.meta.count;
  for (const l of live) for (const p of l.parts) candidateEvents += p.count;
  return { blocks: kept, live, fields, candidateEvents };
}

function timeFilter(spec: TimeRange, col: string, micros: boolean): string[] {
  const v = (us: number) => (micros ? String(us) : `make_timestamp(${us})`);
  const out: string[] = [];
  if (spec.fromUs !== undefined) out.push(`${col} >= ${v(Math.floor(spec.fromUs))}`);
  if (spec.toUs !== undefined) out.push(`${col} < ${v(Math.ceil(spec.toUs))}`);
  return out;
}

function blockFieldExpr(name: string, type: ColumnType, blocks: Block[]): string {
  let promoted = false;
  let extra = false;
  for (const b of blocks) {
    const f = b.meta.fields.find((x) => x.name === name);
    if (f?.promoted) promoted = true;
    else if (f) extra = true;
  }
  const parts: string[] = [];
  if (promoted) parts.push(`TRY_CAST(${ident(name)} AS ${type})`);
  if (extra) parts.push(`TRY_CAST(json_extract_string(_extra, ${jsonKeyPath(name)}) AS ${type})`);
  const e = parts.length === 0 ? `NULL::${type}` : parts.length === 1 ? parts[0] : `COALESCE(${parts.join(', ')})`;
  return `${e} AS ${ident(name)}`;
}

function blocksSql(plan: ScanPlan, spec: ScanSpec): string {
  const files = plan.blocks.map((b) => lit(b.path)).join(', ');
  const cols = [...CORE.map(ident), ...[...plan.fields].map(([n, t]) => blockFieldExpr(n, t, plan.blocks))];
  const where = timeFilter(spec, '_time', false);
  return `SELECT ${cols.join(', ')} FROM read_parquet([${files}], union_by_name=true)${where.length ? ' WHERE ' + where.join(' AND ') : ''}`;
}

function liveSql(plan: ScanPlan, spec: ScanSpec): string {
  const cols = [
    'make_timestamp(timeUs) AS _time',
    'env',
    '"index"',
    ...['host', 'source', 'sourcetype', 'message'].map((c) => `COALESCE(${c}, '') AS ${c}`),
    ...[...plan.fields].map(([n, t]) => {
      const s = `json_extract_string(fields, ${jsonKeyPath(n)})`;
      return `${t === 'VARCHAR' ? s : `TRY_CAST(${s} AS ${t})`} AS ${ident(n)}`;
    }),
  ];
  const where = ['timeUs IS NOT NULL', `env IN (${spec.envs.map(lit).join(', ')})`, ...timeFilter(spec, 'timeUs', true)];
  if (spec.indexes !== null) where.push(spec.indexes.length ? `"index" IN (${spec.indexes.map(lit).join(', ')})` : 'false');
  return `SELECT ${cols.join(', ')} FROM ${walReadSql(plan.live.map((l) => l.seg.path))} WHERE ${where.join(' AND ')}`;
}

function emptySql(plan: ScanPlan): string {
  const cols = ['NULL::TIMESTAMP AS _time', ...CORE.slice(1).map((c) => `NULL::VARCHAR AS ${ident(c)}`), ...[...plan.fields].map(([n, t]) => `NULL::${t} AS ${ident(n)}`)];
  return `SELECT ${cols.join(', ')} WHERE false`;
}

/** The relation SQL for a plan: blocks UNION ALL live, or an empty relation with the same columns. */
export function relationSql(plan: ScanPlan, spec: ScanSpec): string {
  const parts: string[] = [];
  if (plan.blocks.length > 0) parts.push(blocksSql(plan, spec));
  if (plan.live.length > 0) parts.push(liveSql(plan, spec));
  if (parts.length === 0) parts.push(emptySql(plan));
  return `(${parts.join(' UNION ALL ')})`;
}

export function summarizePartitions(blocks: Iterable<Block>, segs: Iterable<LiveSegment>, envs?: string[]): PartitionSummary[] {
  const acc = new Map<string, PartitionSummary>();
  const add = (env: string, index: string, n: number, minUs: number, maxUs: number) => {
    if (envs && !envs.includes(env)) return;
    const key = `${env}\u0001${index}`;
    const s = acc.get(key);
    if (!s) acc.set(key, { env, index, events: n, minTimeUs: minUs, maxTimeUs: maxUs });
    else {
      s.events += n;
      s.minTimeUs = Math.min(s.minTimeUs, minUs);
      s.maxTimeUs = Math.max(s.maxTimeUs, maxUs);
    }
  };
  for (const b of blocks) add(b.meta.env, b.meta.index, b.meta.count, b.meta.minUs, b.meta.maxUs);
  for (const s of segs) for (const p of s.partitions.values()) add(p.env, p.index, p.count, p.minUs, p.maxUs);
  return [...acc.values()].sort((a, b) => (a.env + '\u0001' + a.index < b.env + '\u0001' + b.index ? -1 : 1));
}

export function summarizeFields(blocks: Iterable<Block>, segs: Iterable<LiveSegment>, spec: Omit<ScanSpec, 'requiredTokens' | 'fields'>): FieldSummary[] {
  const seen = collectFields(selectBlocks(blocks, { ...spec, requiredTokens: [] }), selectLive(segs, spec));
  return [...seen]
    .map(([name, f]) => ({ name, type: summaryType(columnType(f.bits)), events: f.count }))
    .sort((a, b) => b.events - a.events || (a.name < b.name ? -1 : 1));
}

