import type { Block } from '../blocks/block-files.js';
import { columnType, summaryType } from '../blocks/field-types.js';
import type { LiveSegment } from '../wal/live-segment.js';
import type { FieldSummary, PartitionSummary, ScanSpec } from '../types.js';
import { MAX_EVENT_US, MIN_EVENT_US } from '../../events/timestamp.js';
import { collectFields, selectBlocks, selectLive } from './scan-plan.js';

// EventStore.partitions() and EventStore.fields(): answered from the catalog (sidecars and live
// accounting), no rows read.

export function summarizePartitions(
  blocks: Iterable<Block>,
  segs: Iterable<LiveSegment>,
  envs?: string[],
): PartitionSummary[] {
  const acc = new Map<string, PartitionSummary>();
  const add = (env: string, index: string, n: number, lo: number, hi: number) => {
    if (envs && !envs.includes(env)) return;
    // data written before the store's time guard may lie outside years 1..9999: every caller
    // prints these extents as dates, and one such event must not make the catalog fail
    const minUs = clampTime(lo);
    const maxUs = clampTime(hi);
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

export function summarizeFields(
  blocks: Iterable<Block>,
  segs: Iterable<LiveSegment>,
  spec: Omit<ScanSpec, 'requiredTokens' | 'fields'>,
): FieldSummary[] {
  const seen = collectFields(selectBlocks(blocks, { ...spec, requiredTokens: [] }).blocks, selectLive(segs, spec));
  return [...seen]
    .map(([name, f]) => ({ name, type: summaryType(columnType(f.bits)), events: f.count }))
    .sort((a, b) => b.events - a.events || (a.name < b.name ? -1 : 1));
}

function clampTime(us: number): number {
  return Number.isNaN(us) ? MIN_EVENT_US : Math.min(MAX_EVENT_US, Math.max(MIN_EVENT_US, us));
}
