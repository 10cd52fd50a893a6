import type { Block } from './block-files.js';

export interface MergePolicy {
  /** Blocks with fewer events are merge candidates while their partition is being written... */
  smallEvents: number;
  /**
   * ...except parts (written by a decode worker, parts/) of at least this many events: they wait
   * like larger blocks, so a load of big batches is not rewritten while it lasts.
   */
  partEvents: number;
  /**
   * ...and blocks with fewer than this many once the partition has been quiet for `settledMs`, or
   * holds `hotMaxBlocks` of them (a bound on the files of a partition written all day).
   */
  settledEvents: number;
  settledMs: number;
  hotMaxBlocks: number;
  /** A merge writes at most this many events. */
  targetEvents: number;
  /** Merge a partition once it has this many candidates... */
  minBlocks: number;
  /** ...or at least two, when its newest block is this old (ms): the partition went quiet. */
  coldMs: number;
}

/**
 * Picks groups of small blocks of one env/index/day to merge, oldest first. Blocks carrying an
 * `_extra` column (more fields than promoted) are left alone. Pure: the engine runs the groups.
 *
 * Two tiers (docs/storage.md, "Merges"): a block smaller than one granule (a segment closed by age,
 * a quiet index) is merged soon, as it costs a file and a sidecar for little data; a larger one
 * already compresses and prunes like a part of a big block (its row groups are full granules), so
 * it waits until its partition has been quiet for `settledMs` or has `hotMaxBlocks` such blocks:
 * merging it while the partition is still written rewrote every event once more during the load
 * (≈ 27 % of the background CPU at 5M events).
 */
export function pickMerges(blocks: Block[], nowMs: number, policy: MergePolicy): Block[][] {
  const byPart = new Map<string, { newest: number; blocks: Block[] }>();
  for (const b of blocks) {
    const key = `${b.meta.env}\u0001${b.meta.index}\u0001${b.meta.day}`;
    let p = byPart.get(key);
    if (!p) byPart.set(key, (p = { newest: 0, blocks: [] }));
    p.newest = Math.max(p.newest, b.meta.createdAt);
    if (b.meta.count < policy.settledEvents && !b.meta.hasExtra) p.blocks.push(b);
  }
  const out: Block[][] = [];
  for (const p of byPart.values()) {
    const settled = nowMs - p.newest >= policy.settledMs || p.blocks.length >= policy.hotMaxBlocks;
    const list = settled ? p.blocks : p.blocks.filter((b) => small(b, policy));
    if (list.length < 2) continue;
    const newest = Math.max(...list.map((b) => b.meta.createdAt));
    if (list.length < policy.minBlocks && nowMs - newest < policy.coldMs) continue;
    list.sort((a, b) => a.meta.createdAt - b.meta.createdAt || (a.meta.name < b.meta.name ? -1 : 1));
    out.push(...groupUpTo(list, policy.targetEvents));
  }
  return out;
}

/** A block merged while its partition is still written: below one granule, and not a part of a big batch. */
function small(b: Block, policy: MergePolicy): boolean {
  if (b.meta.count >= policy.smallEvents) return false;
  const part = b.meta.walSeg === null && b.meta.replaces.length === 0;
  return !part || b.meta.count < policy.partEvents;
}

function groupUpTo(list: Block[], target: number): Block[][] {
  const groups: Block[][] = [];
  let cur: Block[] = [];
  let n = 0;
  for (const b of list) {
    if (cur.length > 0 && n + b.meta.count > target) {
      if (cur.length > 1) groups.push(cur);
      cur = [];
      n = 0;
    }
    cur.push(b);
    n += b.meta.count;
  }
  if (cur.length > 1) groups.push(cur);
  return groups;
}
