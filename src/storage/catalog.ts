import { deleteBlockFiles, type Block } from './blocks/block-files.js';
import { FileRefs } from './read/file-refs.js';
import type { SharedBlocks } from './shared/cluster.js';

/**
 * The blocks a scan can read: this node's own (files in the data dir, by path) and, with a store,
 * the other nodes' published ones (shared/), never the same block twice — a node reads its own
 * blocks locally and never from its manifest. Also the pins that keep what a running scan reads:
 * local files from deletion, remote ones from eviction. Single JS thread: a change made in one
 * synchronous step is seen whole by every scan planned after it.
 */
export class Catalog {
  private readonly local = new Map<string, Block>();
  /** Reference counts of local files (blocks, WAL segments) running scans read. */
  readonly refs = new FileRefs();
  /** Blocks a running delete will rewrite (deleting.ts): merges leave them alone until it has. */
  readonly reserved = new Set<string>();
  private shared: SharedBlocks | undefined;

  attach(shared: SharedBlocks): void {
    this.shared = shared;
  }

  /** This node's blocks. */
  own(): IterableIterator<Block> {
    return this.local.values();
  }

  /** This node's blocks and the other nodes' published ones. */
  *all(): Iterable<Block> {
    yield* this.local.values();
    if (this.shared) yield* this.shared.remoteBlocks();
  }

  get size(): number {
    return this.local.size;
  }

  /** This node's blocks, events and bytes (stats for tests and benchmarks). */
  totals(): { blocks: number; blockEvents: number; blockBytes: number } {
    let blockEvents = 0;
    let blockBytes = 0;
    for (const b of this.local.values()) {
      blockEvents += b.meta.count;
      blockBytes += b.meta.bytes;
    }
    return { blocks: this.local.size, blockEvents, blockBytes };
  }

  has(b: Block): boolean {
    return this.local.get(b.path) === b;
  }

  add(b: Block): void {
    this.local.set(b.path, b);
  }

  /** Takes a block out; its files go once no scan reads them. */
  drop(b: Block): void {
    this.local.delete(b.path);
    this.refs.deleteWhenFree(b.path, () => deleteBlockFiles(b));
  }

  /** Blocks a merge may take: with a store only published ones, so one manifest write swaps the merge in whole. */
  mergeCandidates(): Block[] {
    const shared = this.shared;
    return [...this.local.values()].filter(
      (b) => !this.reserved.has(b.meta.name) && (!shared || shared.isPublished(b.meta.name)),
    );
  }

  /** Whether blocks may (still) be merged: all in the catalog, none reserved by a delete and, with a store, all published (not taken out meanwhile). */
  mergeable(inputs: Block[]): boolean {
    return inputs.every(
      (b) => this.has(b) && !this.reserved.has(b.meta.name) && (!this.shared || this.shared.isPublished(b.meta.name)),
    );
  }

  /**
   * Pins what a plan reads. Call it in the planning step (before any await): local files are kept
   * from deletion (merge, retention, seal), other nodes' blocks from eviction and fetched into the
   * cache when missing. Answers the release.
   */
  async hold(blocks: Block[], files: string[]): Promise<() => void> {
    this.refs.acquire(files);
    try {
      const remote = this.shared ? await this.shared.hold(blocks) : undefined;
      return () => {
        this.refs.release(files);
        remote?.();
      };
    } catch (err) {
      this.refs.release(files);
      throw err;
    }
  }
}
