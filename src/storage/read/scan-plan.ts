import type { Block } from '../blocks/block-files.js';
import type { Bloom } from '../blocks/bloom.js';
import type { LiveSegment, LivePartition } from '../wal/live-segment.js';
import { bitsOfColumnType, columnType, type ColumnType } from '../blocks/field-types.js';
import { tokenPieces } from '../blocks/tokens.js';
import type { ScanSpec } from '../types.js';

// Scan planning: which blocks and live partitions a scan reads (pruning by env, index, time and
// token filter) and which field columns its relation exposes (relation-sql.ts writes the SQL).

/** The relation's core columns, in order. */
export const CORE = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'];
const CORE_NAMES = new Set(CORE);

/** What a scan reads: the chosen blocks and the live partitions (with their segment files). */
export interface ScanPlan {
  blocks: Block[];
  /**
   * For kept blocks whose granule filters rule out some of their rows: the file row ranges
   * (inclusive) that may match. A block not in the map is read whole.
   */
  rows: Map<Block, [number, number][]>;
  live: { seg: LiveSegment; parts: LivePartition[] }[];
  /** Field column name → column type, in output order. */
  fields: Map<string, ColumnType>;
  candidateEvents: number;
}

type TimeRange = Pick<ScanSpec, 'fromUs' | 'toUs'>;

function inScope(spec: Pick<ScanSpec, 'envs' | 'indexes'>, env: string, index: string): boolean {
  return spec.envs.includes(env) && (spec.indexes === null || spec.indexes.includes(index));
}

/** Whether data from minUs to maxUs (inclusive) may hold times of the range (from inclusive, to exclusive). */
export function overlaps(t: TimeRange, minUs: number, maxUs: number): boolean {
  return (t.fromUs === undefined || maxUs >= t.fromUs) && (t.toUs === undefined || minUs < t.toUs);
}

/** A filter may hold every piece of every required token. */
function mayMatch(f: Bloom, pieces: string[]): boolean {
  for (const p of pieces) if (!f.mightContain(p)) return false;
  return true;
}

/**
 * The row ranges of a block that may hold every required token: undefined for the whole block,
 * [] for none. A block's granule filters (each granule one Parquet row group), or the one filter
 * of a block written before granules.
 */
export function matchingRows(b: Block, pieces: string[]): [number, number][] | undefined {
  if (pieces.length === 0) return undefined;
  const g = b.granules;
  if (!g) return !b.bloom || mayMatch(b.bloom, pieces) ? undefined : [];
  const ranges: [number, number][] = [];
  let all = true;
  g.blooms.forEach((f, i) => {
    if (!mayMatch(f, pieces)) return void (all = false);
    const first = i * g.rows;
    const last = Math.min(b.meta.count, first + g.rows) - 1;
    const prev = ranges[ranges.length - 1];
    if (prev && prev[1] === first - 1) prev[1] = last;
    else ranges.push([first, last]);
  });
  // no granule kept: [] and the block is skipped
  return all ? undefined : ranges;
}

/** The token pieces a block's rows must hold: the required ones, plus those of fieldTokens whose fields the block does not store. */
function blockPieces(b: Block, required: string[], fieldTokens: { fields: string[]; pieces: string[] }[]): string[] {
  const extra = fieldTokens.filter((ft) => !b.meta.fields.some((f) => ft.fields.includes(f.name)));
  return extra.length === 0 ? required : [...new Set([...required, ...extra.flatMap((ft) => ft.pieces)])];
}

export function selectBlocks(
  all: Iterable<Block>,
  spec: Omit<ScanSpec, 'fields'>,
): { blocks: Block[]; rows: ScanPlan['rows'] } {
  const pieces = [...new Set(spec.requiredTokens.flatMap(tokenPieces))];
  const fieldTokens = (spec.fieldTokens ?? []).map((ft) => ({
    fields: ft.fields,
    pieces: ft.tokens.flatMap(tokenPieces),
  }));
  const blocks: Block[] = [];
  const rows: ScanPlan['rows'] = new Map();
  for (const b of all) {
    const m = b.meta;
    if (!inScope(spec, m.env, m.index) || !overlaps(spec, m.minUs, m.maxUs)) continue;
    const r = matchingRows(b, blockPieces(b, pieces, fieldTokens));
    if (r?.length === 0) continue;
    blocks.push(b);
    if (r) rows.set(b, r);
  }
  return { blocks, rows };
}

export function selectLive(
  segs: Iterable<LiveSegment>,
  spec: Omit<ScanSpec, 'fields' | 'requiredTokens'>,
): ScanPlan['live'] {
  const out: ScanPlan['live'] = [];
  for (const seg of segs) {
    const parts = [...seg.partitions.values()].filter(
      (p) => inScope(spec, p.env, p.index) && overlaps(spec, p.minUs, p.maxUs),
    );
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
  const { blocks: kept, rows } = selectBlocks(blocks, spec);
  const live = selectLive(segs, spec);
  const seen = collectFields(kept, live);
  const names = spec.fields === '*' ? [...seen.keys()].sort() : spec.fields;
  const fields = new Map<string, ColumnType>();
  for (const n of names) {
    // names equal but for case are columns apart (relation-sql.ts, fieldColumn), so every field is
    // kept; a core name is the core column. An empty name cannot be a column, and a NUL ends
    // DuckDB's SQL text: data an older svc stored with such names (ingest renames them now) is
    // left out rather than failing every search
    if (n === '' || n.includes('\u0000') || CORE_NAMES.has(n)) continue;
    fields.set(n, columnType(seen.get(n)?.bits ?? 1));
  }
  let candidateEvents = 0;
  for (const b of kept)
    candidateEvents += rows.get(b)?.reduce((n, [first, last]) => n + last - first + 1, 0) ?? b.meta.count;
  for (const l of live) for (const p of l.parts) candidateEvents += p.count;
  return { blocks: kept, rows, live, fields, candidateEvents };
}
