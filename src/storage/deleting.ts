import type { Catalog } from './catalog.js';
import type { Duck } from './duck.js';
import { queryOn } from './duck.js';
import { deleteBlockFiles, type Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { rewriteWithout } from './blocks/rewrite.js';
import { overlaps, planScan } from './read/scan-plan.js';
import { numberedBlockSql } from './read/relation-sql.js';
import type { RelationInfo, ScanSpec } from './types.js';
import type { SharedBlocks } from './shared/cluster.js';

// The delete stage (docs/decisions/0026-delete-by-query.md): this node's blocks written again
// without the events a delete's filter matches, one block per background job so seals and merges
// interleave with a long delete. The job around it (src/deletes/) decides what to rewrite and
// keeps the progress; this file seals, picks, rewrites and swaps.

/** What a delete removes: a search's scope and range, and the search's WHERE over a relation. */
export interface DeleteFilter {
  envs: string[];
  /** null: every index of the envs. */
  indexes: string[] | null;
  fromUs: number;
  toUs: number;
  /** User fields the filter reads: the relation exposes them (NULL where absent). */
  fields: string[];
  /**
   * The statement selecting column `_drow` of the rows of `rel` the filter matches: the query
   * compiler's own search stage over a relation that carries `_drow` along.
   */
  doomedRows: (rel: RelationInfo) => string;
}

/** What one block's rewrite did. `gone`: the block was no longer this node's (a retention sweep took it). */
export interface RewriteOutcome {
  deleted: number;
  gone: boolean;
}

let tempSeq = 0;

/** The engine's side of a delete: seal, list the blocks in scope, rewrite one block at a time. */
export class Deleting {
  private readonly d: {
    blocks: Catalog;
    duck: Duck;
    target: () => BlockTarget;
    schedule: <T>(job: () => Promise<T>) => Promise<T>;
  };

  /**
   * `schedule` runs a job on the engine's background queue, after the seals and merges queued
   * before it; `shared` is the store's side when there is one (only published blocks are swapped,
   * as merges, and every swap is published).
   */
  constructor(
    blocks: Catalog,
    duck: Duck,
    target: () => BlockTarget,
    schedule: <T>(job: () => Promise<T>) => Promise<T>,
    private readonly shared: () => SharedBlocks | undefined,
  ) {
    this.d = { blocks, duck, target, schedule };
  }

  /**
   * Answers (call it after the engine's flush, so the delete's events are all in blocks) the names of this node's blocks the filter's scope and range cover; they are kept from merges
   * (Catalog.reserved) until rewritten or released, so no merge folds an unrewritten one into a
   * block the delete does not know.
   */
  begin(f: DeleteFilter): Promise<string[]> {
    return this.d.schedule(async () => {
      const names = [...this.d.blocks.own()].filter((b) => inScope(b, f)).map((b) => b.meta.name);
      for (const n of names) this.d.blocks.reserved.add(n);
      return names;
    });
  }

  /** Lets merges take these blocks again (the job ended, failed or was cancelled). */
  release(names: Iterable<string>): void {
    for (const n of names) this.d.blocks.reserved.delete(n);
  }

  /**
   * Rewrites block `name` without the events the filter matches, on the background queue. A block
   * with none is left as it is. `committing(deleted)` runs before the new block is written (the job
   * records what the swap is about to do: after a crash, the old block gone means it committed).
   * Undefined when the engine closed before the job's turn.
   */
  rewrite(name: string, f: DeleteFilter, committing: (deleted: number) => void): Promise<RewriteOutcome | undefined> {
    return this.d.schedule(async (): Promise<RewriteOutcome | undefined> => {
      const b = [...this.d.blocks.own()].find((x) => x.meta.name === name);
      if (!b) return { deleted: 0, gone: true };
      if (this.shared() && !this.shared()!.isPublished(name))
        throw new Error(`block ${name} is not published to the shared store yet`);
      this.d.blocks.refs.acquire([b.path]);
      try {
        return await this.d.duck.with(async (c) => {
          const table = `_svc_delete_${++tempSeq}`;
          await c.run(`CREATE TEMP TABLE ${table} AS ${f.doomedRows(this.relation(b, f))}`);
          try {
            const n = Number((await queryOn(c, `SELECT count(*) FROM ${table}`)).rows[0][0]);
            if (n === 0) return { deleted: 0, gone: false };
            committing(n);
            const next = await rewriteWithout(c, b, table, this.d.target());
            if (!this.d.blocks.has(b)) {
              deleteBlockFiles(next);
              return { deleted: 0, gone: true };
            }
            return this.swap(b, next);
          } finally {
            await c.run(`DROP TABLE IF EXISTS ${table}`);
          }
        });
      } finally {
        this.d.blocks.refs.release([b.path]);
      }
    });
  }

  /** One synchronous step: scans see the old block or the new one, never both. */
  private swap(b: Block, next: Block): RewriteOutcome {
    const deleted = b.meta.count - next.meta.count;
    this.d.blocks.add(next);
    this.d.blocks.drop(b);
    this.d.blocks.reserved.delete(b.meta.name);
    this.shared()?.kick();
    return { deleted, gone: false };
  }

  /**
   * The block as a search over the delete's range reads it, with `_drow`. Field types come from
   * every block in scope, as a search's plan types them, so a comparison matches the same rows.
   */
  private relation(b: Block, f: DeleteFilter): RelationInfo {
    const spec: ScanSpec = { ...f, requiredTokens: [], fields: f.fields };
    const plan = planScan(this.d.blocks.all(), [], spec);
    return {
      sql: numberedBlockSql(b, plan, f),
      fieldColumns: [...plan.fields.keys()],
      fieldTypes: Object.fromEntries(plan.fields),
      candidateEvents: b.meta.count,
    };
  }
}

function inScope(b: Block, f: DeleteFilter): boolean {
  const m = b.meta;
  return f.envs.includes(m.env) && (f.indexes === null || f.indexes.includes(m.index)) && overlaps(f, m.minUs, m.maxUs);
}
