import type { Block } from '../blocks/block-files.js';
import type { LiveSegment } from '../wal/live-segment.js';
import type { QueryResult, RelationInfo, RowChunk, ScanSpec, StreamRows } from '../types.js';
import { planScan } from './scan-plan.js';
import { relationSql } from './relation-sql.js';
import { fileNamedBy, type UnreadableFiles } from './unreadable-files.js';

/** What a scan reads from the engine. */
export interface ScanSources {
  blocks(): Iterable<Block>;
  live(): Iterable<LiveSegment>;
  /** Keeps blocks and files from deletion until the returned release runs. */
  hold(blocks: Block[], files: string[]): Promise<() => void>;
  query(sql: string, signal?: AbortSignal): Promise<QueryResult>;
  stream(sql: string, signal?: AbortSignal): AsyncIterable<RowChunk>;
  unreadable: UnreadableFiles;
}

/** Files one scan may leave out before it gives up (each is a different damaged file). */
const MAX_SKIPS = 4;

/**
 * EventStore.scan: plans the relation over every readable block and live segment and runs `run`.
 * When DuckDB fails on a file of the plan (it names it), that file is left out (reported, later
 * scans skip it) and `run` runs again over the rest, unless rows were already streamed to the
 * caller (an export): then the error stands, as storage's (run-errors.ts), never the query's.
 */
export async function runScan<T>(
  src: ScanSources,
  spec: ScanSpec,
  run: (relation: RelationInfo, exec: (sql: string) => Promise<QueryResult>, stream: StreamRows) => Promise<T>,
): Promise<T> {
  for (let skips = 0; ; skips++) {
    const blocks = [...src.blocks()].filter((b) => !src.unreadable.has(b.path));
    const live = [...src.live()].filter((s) => !src.unreadable.has(s.path));
    const plan = planScan(blocks, live, spec);
    const files = [...plan.blocks.map((b) => b.path), ...plan.live.map((l) => l.seg.path)];
    const release = await src.hold(plan.blocks, files);
    let streamed = false;
    const stream: StreamRows = (sql) => ({
      async *[Symbol.asyncIterator]() {
        for await (const chunk of src.stream(sql, spec.signal)) {
          streamed = true;
          yield chunk;
        }
      },
    });
    try {
      const relation: RelationInfo = {
        sql: relationSql(plan, spec),
        fieldColumns: [...plan.fields.keys()],
        fieldTypes: Object.fromEntries(plan.fields),
        candidateEvents: plan.candidateEvents,
      };
      return await run(relation, (sql) => src.query(sql, spec.signal), stream);
    } catch (e) {
      if (
        streamed ||
        skips >= MAX_SKIPS ||
        spec.signal?.aborted ||
        !leaveOut(
          src.unreadable,
          e,
          plan.blocks,
          plan.live.map((l) => l.seg),
        )
      )
        throw e;
    } finally {
      release();
    }
  }
}

/** Leaves out the planned file `e` names; false when it names none. */
function leaveOut(unreadable: UnreadableFiles, e: unknown, blocks: Block[], segs: LiveSegment[]): boolean {
  const block = blocks.find((b) => b.path === fileNamedBy(e, [b.path]));
  if (block) {
    unreadable.add(block.path, 'block', [block.meta.env], e);
    return true;
  }
  for (const seg of segs) {
    const named = fileNamedBy(e, seg.columns ? [seg.path, seg.columns] : [seg.path]);
    if (!named) continue;
    // a columnar copy is derived data: the scan goes back to the segment's JSON
    if (named === seg.columns) seg.columns = undefined;
    else unreadable.add(seg.path, 'segment', [...new Set([...seg.partitions.values()].map((p) => p.env))], e);
    return true;
  }
  return false;
}
