import type { Block } from './block-files.js';

export interface MergePolicy {
  /** Blocks with fewer events are merge candidates. */
  smallEvents: number;
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
 */
export function pickMerges(blocks: Block[], nowMs: number, policy: MergePolicy): Block[][] {
  const byPart = new Map<string, Block[]>();
  for (const b of blocks) {
    if (b.meta.count >= policy.smallEvents || b.meta.hasExtra) continue;
    const key = `${b.meta.env}\u0001${b.meta.index}\u0001${b.meta.day}`;
    const list = byPart.get(key);
    if (list) list.push(b);
    else byPart.set(key, [b]);
  }
  const out: Block[][] = [];
  for (const list of byPart.values()) {
    if (list.length < 2) continue;
    const newest = Math.max(...list.map((b) => b.meta.createdAt));
    if (list.length < policy.minBlocks && nowMs - newest < policy.coldMs) continue;
    list.sort((a, b) => a.meta.createdAt - b.meta.createdAt || (a.meta.name < b.meta.name ? -1 : 1));
    out.push(...groupUpTo(list, policy.targetEvents));
  }
  return out;
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
