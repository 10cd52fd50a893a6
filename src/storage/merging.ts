import type { Duck } from './duck.js';
import type { Catalog } from './catalog.js';
import { deleteBlockFiles, type Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { mergeIntoBlock } from './blocks/merge.js';
import { pickMerges, type MergePolicy } from './blocks/merge-policy.js';
import { fileNamedBy, type UnreadableFiles } from './read/unreadable-files.js';
import type { StorageObserver } from '../metrics/storage.js';

// The merge stage: small blocks of one partition become one (blocks/merge.ts writes it); the
// engine runs a round as a background job, this file swaps the result into the catalog.

export interface MergeDeps {
  blocks: Catalog;
  duck: Duck;
  target: () => BlockTarget;
  policy: MergePolicy;
  /** Called after each swap (with a store: publish). */
  merged: () => void;
  /** Blocks a scan or a merge could not read: never merged (a merge would fail on them each round). */
  unreadable: UnreadableFiles;
  /** Told of every merge and how long it took (metrics). */
  observer?: StorageObserver;
}

/** One round of merges picked by the policy; each merge commits on its own. */
export async function mergeRound(d: MergeDeps, force: boolean): Promise<number> {
  // with a store, only published blocks: one manifest write then swaps the merge in whole
  const candidates = d.blocks.mergeCandidates().filter((b) => !d.unreadable.has(b.path));
  const groups = pickMerges(candidates, Date.now(), {
    ...d.policy,
    ...(force ? { minBlocks: 2, coldMs: 0, settledMs: 0 } : {}),
  });
  for (const g of groups) {
    const t0 = performance.now();
    try {
      await mergeBlocks(d, g);
      d.observer?.merge((performance.now() - t0) / 1000, 'ok');
    } catch (e) {
      d.observer?.merge((performance.now() - t0) / 1000, 'failed');
      throw e;
    }
  }
  return groups.length;
}

async function mergeBlocks(d: MergeDeps, inputs: Block[]): Promise<void> {
  if (!d.blocks.mergeable(inputs)) return;
  d.blocks.refs.acquire(inputs.map((b) => b.path));
  try {
    let merged: Block | undefined;
    try {
      merged = await d.duck.with((c) => mergeIntoBlock(c, inputs, d.target()));
    } catch (e) {
      // an input DuckDB cannot read stays as it is, left out of searches and of later merges
      const bad = inputs.find((b) => fileNamedBy(e, [b.path]));
      if (!bad) throw e;
      return d.unreadable.add(bad.path, 'block', [bad.meta.env], e);
    }
    if (!merged) return;
    // an input taken out of the manifest meanwhile (expired) must not come back inside the merge
    if (!d.blocks.mergeable(inputs)) return deleteBlockFiles(merged);
    // one synchronous step: scans see the inputs or the merged block, never both
    d.blocks.add(merged);
    for (const b of inputs) d.blocks.drop(b);
    d.merged();
  } finally {
    d.blocks.refs.release(inputs.map((b) => b.path));
  }
}
