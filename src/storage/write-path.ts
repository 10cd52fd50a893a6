import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Duck } from './duck.js';
import { Wal } from './wal/wal.js';
import { LiveSegment } from './wal/live-segment.js';
import { partsFailedOf, walBatch, type WriteBatch } from './wal/batch-encode.js';
import { writeSummary } from './wal/segment-summary.js';
import { LiveColumns } from './wal/live-columns.js';
import { repairSegment } from './wal/segment-repair.js';
import type { BlockTarget } from './blocks/block-writer.js';
import type { Catalog } from './catalog.js';
import type { StorageTuning } from './tuning.js';
import type { UnreadableFiles } from './read/unreadable-files.js';
import type { ProblemReporter } from './problems.js';
import { SealFailures } from './seal-failures.js';
import { WalFaults, describeErrno, freeBytesAt } from './disk-faults.js';
import { SvcError } from '../errors/svc-error.js';
import type { StorageObserver } from '../metrics/storage.js';
import type { Block } from './blocks/block-files.js';
import { isPartBatch } from './parts/part-batch.js';
import { discardParts, publishParts, unpublish } from './parts/part-commit.js';
import { commitSeal, DIRECT_SEAL_MAX_PARTS, removeSealedSegment, writeSegmentBlocks } from './seal.js';

/** What the write path needs of the engine: the shared state it swaps results into, and its job queue. */
export interface WritePathDeps {
  duck: Duck;
  wal: Wal;
  blocks: Catalog;
  unreadable: UnreadableFiles;
  problems: ProblemReporter;
  log: Logger;
  tuning: StorageTuning;
  maxEventBytes: number;
  dataDir: string;
  target: () => BlockTarget;
  /** Queues a job on the engine's one-at-a-time background queue (which logs its failure). */
  queue: (job: () => Promise<unknown>) => void;
  /** A seal committed: its blocks are in the catalog (publish them, consider a merge). */
  sealed: () => void;
  /** Told of every seal attempt and how long it took (metrics). */
  observer?: StorageObserver;
}

/**
 * The write path, from a commit to sealed blocks: one WAL append + fsync per group of batches
 * under the WAL lock, the open segment rotated when it is big (or old: the engine's timer), each
 * closed segment sealed into blocks as a background job, or rewritten and sealed again when its
 * seal fails (seal.ts, seal-failures.ts). Commits wait while too many closed segments are unsealed.
 */
export class WritePath {
  /** Closed-but-unsealed segments and the open one, by seq. */
  readonly live = new Map<number, LiveSegment>();
  readonly columns: LiveColumns;
  private walLock: Promise<unknown> = Promise.resolve();
  private sealWaiters: (() => void)[] = [];
  private closed = false;
  private readonly walFaults: WalFaults; // disk_full, disk_read_only, wal_write_failed: told and resolved
  private readonly sealFailures: SealFailures;

  constructor(private readonly d: WritePathDeps) {
    this.sealFailures = new SealFailures(d.problems, d.log);
    this.walFaults = new WalFaults(d.problems, () => freeBytesAt(d.wal.dir));
    this.columns = new LiveColumns(d.duck, join(d.dataDir, 'tmp'), (err, seq) =>
      d.log.warn({ err, seq }, 'cannot make the columnar copy of a WAL segment; searches read its JSON'),
    );
  }

  /** Commits are waiting for seals (the writer queue answers queue_full to callers that will not wait). */
  get backedUp(): boolean {
    return this.sealWaiters.length > 0;
  }

  /** A segment the start-up replayed from the WAL: live until its seal, queued now. */
  replayed(seg: LiveSegment): void {
    this.live.set(seg.seq, seg);
    this.waiting(seg);
    this.d.queue(() => this.seal(seg.seq));
  }

  /**
   * The writer queue's commit: the group's parts published (parts/part-commit.ts), then one WAL
   * append + fsync for its other batches and their live accounting; the parts join the catalog
   * once both are durable. A failure undoes the parts: the group is refused whole.
   */
  async commit(batches: WriteBatch[]): Promise<void> {
    this.partsReport(batches);
    const built = batches.filter(isPartBatch).flatMap((b) => b.built);
    if (built.length === 0) return this.commitWal(batches);
    let published: Block[];
    try {
      published = await publishParts(built, this.d.target(), this.d.wal.dir);
    } catch (err) {
      this.d.log.error({ err }, 'cannot publish the parts of a write; the writes were refused');
      this.walFaults.failed(err);
      const code = (err as NodeJS.ErrnoException).code;
      throw new SvcError(
        'storage_unavailable',
        `cannot store the events (${code ? describeErrno(code) : (err as Error).message}); nothing of this request was stored`,
        { retryAfterSecs: 5, cause: err },
      );
    }
    this.walFaults.succeeded();
    try {
      const rest = batches.filter((b) => !isPartBatch(b));
      if (rest.length > 0) await this.commitWal(rest);
    } catch (e) {
      unpublish(published);
      throw e;
    }
    for (const b of published) this.d.blocks.add(b);
    this.d.sealed();
  }

  /**
   * A batch a decode worker meant to write as parts and sent through the WAL is a problem told
   * (once a minute, ProblemReporter) until a batch of parts is written again.
   */
  private partsReport(batches: WriteBatch[]): void {
    for (const b of batches) {
      const failed = partsFailedOf(b);
      if (isPartBatch(b)) this.d.problems.resolve('parts_failed', 'decode workers write batches as parts again');
      else if (failed) this.d.problems.report('parts_failed', `${failed}; the batch went through the WAL`);
    }
  }

  /** A batch the writer queue refused or could not commit: a batch of parts loses its files (nothing of it was acknowledged). */
  refused(b: WriteBatch): void {
    if (isPartBatch(b)) discardParts(b.built);
  }

  /** One WAL append + fsync for the whole group, then live accounting. */
  private async commitWal(batches: WriteBatch[]): Promise<void> {
    const { wal, tuning } = this.d;
    // batches a decode worker encoded cost nothing here; LogEvent batches are encoded now
    const encoded = batches.map((b) => walBatch(b, this.d.maxEventBytes));
    const bytes = Buffer.concat(encoded.map((e) => e.wal));
    // backpressure from sealing: the queue fills while we wait, so callers wait or get queue_full
    while (this.unsealedClosed() >= tuning.maxUnsealedSegments && !this.closed) {
      await new Promise<void>((r) => this.sealWaiters.push(r));
    }
    await this.withWal(async () => {
      try {
        await wal.append(bytes);
      } catch (err) {
        // a segment that could not be cut back is closed now (its torn tail is skipped at seal)
        if (wal.damaged) await this.rotate();
        this.d.log.error({ err }, 'write-ahead log append failed; the writes were refused');
        this.walFaults.failed(err);
        throw err;
      }
      this.walFaults.succeeded();
      const seg = this.openSegment();
      for (const e of encoded) seg.absorb(e.parts);
      if (wal.bytes >= tuning.segmentBytes) await this.rotate();
    });
  }

  /** Closes the open segment (when it holds anything) and queues its seal, under the WAL lock. */
  rotateNow(): Promise<void> {
    return this.withWal(() => this.rotate());
  }

  /** Shutdown, first step: commits stop waiting for seals (what they write stays in the WAL for the next start). */
  release(): void {
    this.closed = true;
    for (const w of this.sealWaiters.splice(0)) w();
  }

  /** Shutdown, after the writer queue closed: closes the WAL, keeping the open segment's summary. */
  close(): Promise<void> {
    return this.withWal(async () => {
      await this.d.wal.close();
      // the open segment is never appended to again (the next start opens a new one): keep its summary
      const open = this.live.get(this.d.wal.currentSeq);
      if (open && open.count > 0) writeSummary(this.d.wal.dir, open);
    });
  }

  /** Closed segments waiting for a seal that can succeed: one failing to seal holds nothing back. */
  private unsealedClosed(): number {
    return [...this.live.keys()].filter((seq) => seq < this.d.wal.currentSeq && !this.sealFailures.failing(seq)).length;
  }

  private openSegment(): LiveSegment {
    const seq = this.d.wal.currentSeq;
    let seg = this.live.get(seq);
    if (!seg) this.live.set(seq, (seg = new LiveSegment(seq, Wal.segmentPath(this.d.wal.dir, seq))));
    return seg;
  }

  private withWal<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.walLock.then(fn);
    this.walLock = p.catch(() => undefined);
    return p;
  }

  /** Closes the open segment and queues its seal. Call inside withWal. */
  private async rotate(): Promise<void> {
    const closed = await this.d.wal.rotate();
    if (closed === undefined) return;
    const seg = this.live.get(closed);
    if (seg) writeSummary(this.d.wal.dir, seg);
    if (seg) this.waiting(seg);
    this.d.queue(() => this.seal(closed));
  }

  /**
   * A closed segment's seal is queued: when it will wait behind another seal, or its seal would
   * make a columnar copy anyway (many partitions), the copy is made now (wal/live-columns.ts).
   */
  private waiting(seg: LiveSegment): void {
    if (this.unsealedClosed() > 1 || seg.partitions.size > DIRECT_SEAL_MAX_PARTS) this.columns.add(seg);
  }

  /**
   * Seals one closed WAL segment; on failure the segment stays live and stops holding commits back,
   * and is rewritten and sealed again, or tried again later (seal-failures.ts).
   */
  private async seal(seq: number): Promise<void> {
    const path = Wal.segmentPath(this.d.wal.dir, seq);
    const t0 = performance.now();
    try {
      await this.sealOnce(seq);
      this.d.observer?.seal((performance.now() - t0) / 1000, 'ok');
      this.sealFailures.sealed(seq, path);
      this.d.unreadable.clear(path);
    } catch (err) {
      this.d.observer?.seal((performance.now() - t0) / 1000, 'failed');
      const next = this.sealFailures.failed(seq, path, err);
      if (next.repair) return this.repair(seq);
      setTimeout(() => this.d.queue(() => this.seal(seq)), next.retryMs).unref();
    } finally {
      for (const w of this.sealWaiters.splice(0)) w(); // sealed, or no longer counted in the backlog
    }
  }

  /** The seal's fallback path: rewrites the segment through the store's guard (wal/segment-repair.ts), then seals it. */
  private async repair(seq: number): Promise<void> {
    const old = this.live.get(seq);
    if (!old) return;
    try {
      await this.columns.settled(seq);
      const r = await repairSegment(this.d.wal.dir, seq, this.d.maxEventBytes);
      // one synchronous step: the rewritten file's accounting replaces the old one
      this.live.set(seq, r.seg);
      if (old.columns) this.d.blocks.refs.deleteWhenFree(old.columns);
      this.d.unreadable.clear(old.path);
      this.d.log.warn(
        { seq, changed: r.changed, skipped: r.skipped, events: r.seg.count },
        'WAL segment rewritten so it can be sealed',
      );
    } catch (err) {
      this.d.log.error({ err, seq }, 'cannot rewrite WAL segment');
    } // either way the next failure sets it aside
    this.sealFailures.repaired(seq);
    await this.seal(seq);
  }

  /** Seals one closed WAL segment into blocks and commits (seal.ts; docs/storage.md, "recovery rule"). */
  private async sealOnce(seq: number): Promise<void> {
    const seg = this.live.get(seq);
    if (!seg) return;
    await this.columns.settled(seq);
    const { duck, wal, blocks } = this.d;
    const made = await writeSegmentBlocks(duck, seg, this.d.target(), join(this.d.dataDir, 'tmp'));
    const marker = commitSeal(wal.dir, seq, made);
    // commit point passed: swap live for blocks in one synchronous step, so scans see one or the other
    for (const b of made) blocks.add(b);
    this.live.delete(seq);
    blocks.refs.deleteWhenFree(seg.path, () => removeSealedSegment(wal.dir, seg, marker));
    this.d.sealed();
  }
}
