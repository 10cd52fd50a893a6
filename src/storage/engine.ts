import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { ControlReader } from '../control/types.js';
import type { Clock } from '../clock/clock.js';
import { Duck } from './duck.js';
import { Wal } from './wal/wal.js';
import { LiveSegment } from './wal/live-segment.js';
import { walBatch, type WriteBatch } from './wal/batch-encode.js';
import { WriterQueue } from './wal/writer-queue.js';
import { writeSummary } from './wal/segment-summary.js';
import type { Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { mergeRound } from './merging.js';
import { DEFAULT_TUNING, type StorageTuning } from './tuning.js';
import { Catalog } from './catalog.js';
import { runScan } from './read/scan-run.js';
import { UnreadableFiles } from './read/unreadable-files.js';
import { SealFailures } from './seal-failures.js';
import { repairSegment } from './wal/segment-repair.js';
import { summarizeFields, summarizePartitions } from './read/summaries.js';
import { countBuckets } from './read/bucket-counts.js';
import { clearScratch, quarantineTo, recover } from './recovery.js';
import { salvageQuarantined } from './salvage.js';
import { replayWal } from './wal/replay.js';
import { commitSeal, DIRECT_SEAL_MAX_PARTS, removeSealedSegment, writeSegmentBlocks } from './seal.js';
import { LiveColumns } from './wal/live-columns.js';
import {
  retentionDays,
  sweepExpired,
  type RetentionReport,
  type RetentionSweeper,
  type SweepListener,
} from './retention.js';
import { resolveNodeId } from './node-id.js';
import type { StorageHandle } from './handle.js';
import { ProblemReporter, type ProblemListener } from './problems.js';
import { WalFaults, freeBytesAt } from './disk-faults.js';
import type {
  BucketCounts,
  BucketCountSpec,
  EventStore,
  FieldSummary,
  PartitionSummary,
  QueryResult,
  RelationInfo,
  ScanSpec,
  StreamRows,
} from './types.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import { SharedBlocks, type SharedBlocksOptions } from './shared/cluster.js';
import type { LocalBlocks } from './shared/types.js';

export interface StorageOptions {
  config: Readonly<Config>;
  control: ControlReader;
  clock: Clock;
  log: Logger;
  /** Tuning for tests and benchmarks; defaults suit production. `graceMs`: see SharedBlocks. */
  tuning?: Partial<StorageTuning & { graceMs: number }>;
  /** SVC_STORE: blocks are also published there and other nodes' blocks read from it (shared/). */
  store?: ObjectStore;
}

/**
 * The storage engine: writer queue → WAL → live segments → sealed blocks, plus merge, retention
 * and the scan relation. One per process; everything runs on the JS thread except DuckDB work.
 * Background work (seal, merge, sweep) runs strictly one job at a time, in order.
 *
 * The engine owns the state every stage shares: the maps of blocks and live segments, the WAL and
 * its lock, the job queue, the file references. The stages themselves live beside it: start-up in
 * recovery.ts, the WAL and the live accounting in wal/, sealing in seal.ts, block files and merges
 * in blocks/, the sweep in retention.ts, the read side in read/. What stays here is the write
 * path's commit (it holds the WAL lock) and the in-memory swaps that make each stage's result
 * visible in one synchronous step.
 */
export class StorageEngine implements EventStore, RetentionSweeper, StorageHandle {
  readonly writer: WriterQueue;
  readonly nodeId: string;
  private readonly blocks = new Catalog();
  /** Closed-but-unsealed segments and the open one, by seq. */
  private readonly live = new Map<number, LiveSegment>();
  private readonly tuning: StorageTuning;
  private walLock: Promise<unknown> = Promise.resolve();
  private bg: Promise<unknown> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private sweepListener: SweepListener | undefined;
  private sealWaiters: (() => void)[] = [];
  private lastSeq = 0;
  private closed = false;
  private readonly walFaults: WalFaults; // disk_full, disk_read_only, wal_write_failed: told and resolved
  /** With SVC_STORE: publishing, the other nodes' blocks, the cluster's retention (shared/cluster.ts). */
  private shared: SharedBlocks | undefined;
  private readonly columns: LiveColumns;
  private readonly sealFailures: SealFailures;
  private readonly unreadable: UnreadableFiles;

  private constructor(
    private readonly opts: StorageOptions,
    private readonly duck: Duck,
    private readonly wal: Wal,
    readonly root: string,
    nodeId: string,
    readonly problems: ProblemReporter,
  ) {
    this.nodeId = nodeId;
    const age = opts.config.testSegmentAgeMs;
    this.tuning = { ...DEFAULT_TUNING, ...(age ? { segmentAgeMs: age } : {}), ...opts.tuning };
    // a caller that will not wait (compat protocols) hears queue_full at once while commits wait for seals
    this.writer = new WriterQueue(opts.config.blockQueueCap, (b) => this.commit(b), {
      hold: opts.config.testHoldWriter,
      backedUp: () => this.sealWaiters.length > 0,
    });
    this.sealFailures = new SealFailures(problems, opts.log);
    this.walFaults = new WalFaults(problems, () => freeBytesAt(wal.dir));
    this.unreadable = new UnreadableFiles(problems);
    this.columns = new LiveColumns(duck, join(opts.config.dataDir, 'tmp'), (err, seq) =>
      opts.log.warn({ err, seq }, 'cannot make the columnar copy of a WAL segment; searches read its JSON'),
    );
  }

  /** Opens the data dir, recovers and replays the WAL (recovery.ts), and starts the background timers. */
  static async open(opts: StorageOptions): Promise<StorageEngine> {
    const { config } = opts;
    mkdirSync(config.dataDir, { recursive: true });
    const root = join(config.dataDir, 'blocks');
    const walDir = join(config.dataDir, 'wal');
    mkdirSync(root, { recursive: true });
    clearScratch(config.dataDir);
    const duck = await Duck.open({
      dataDir: config.dataDir,
      memoryLimit: config.duckdbMemoryLimit,
      threads: config.duckdbThreads,
    });
    const problems = new ProblemReporter(() => Date.now());
    const rec = recover(root, walDir, quarantineTo(root, join(config.dataDir, 'quarantine'), opts.log, problems));
    const engine = new StorageEngine(
      opts,
      duck,
      new Wal(walDir, rec.nextSeg),
      root,
      resolveNodeId(config.dataDir, config.nodeId),
      problems,
    );
    for (const b of rec.blocks) engine.blocks.add(b);
    engine.lastSeq = rec.maxBlockSeq;
    for (const b of await salvageQuarantined(duck, rec.quarantined, {
      target: engine.target(),
      kept: rec.blocks,
      unsealed: rec.segments,
      problems,
      log: opts.log,
    }))
      engine.blocks.add(b);
    await replayWal(
      duck,
      walDir,
      rec.segments,
      { maxEventBytes: config.eventLimits.maxEventBytes, log: opts.log },
      (seg) => {
        engine.live.set(seg.seq, seg);
        engine.waiting(seg);
        engine.schedule(() => engine.seal(seg.seq));
      },
    );
    if (opts.store) engine.blocks.attach((engine.shared = await SharedBlocks.open(engine.sharedOptions(opts.store))));
    engine.startTimers();
    opts.log.info(
      { blocks: engine.blocks.size, replayedSegments: rec.segments.length, node: engine.nodeId },
      'storage open',
    );
    return engine;
  }

  // ---------------------------------------------------------------- write path

  /** The writer queue's commit: one WAL append + fsync for the whole group, then live accounting. */
  private async commit(batches: WriteBatch[]): Promise<void> {
    // batches a decode worker encoded cost nothing here; LogEvent batches are encoded now
    const encoded = batches.map((b) => walBatch(b, this.opts.config.eventLimits.maxEventBytes));
    const bytes = Buffer.concat(encoded.map((e) => e.wal));
    // backpressure from sealing: the queue fills while we wait, so callers wait or get queue_full
    while (this.unsealedClosed() >= this.tuning.maxUnsealedSegments && !this.closed) {
      await new Promise<void>((r) => this.sealWaiters.push(r));
    }
    await this.withWal(async () => {
      try {
        await this.wal.append(bytes);
      } catch (err) {
        // a segment that could not be cut back is closed now (its torn tail is skipped at seal)
        if (this.wal.damaged) await this.rotate();
        this.opts.log.error({ err }, 'write-ahead log append failed; the writes were refused');
        this.walFaults.failed(err);
        throw err;
      }
      this.walFaults.succeeded();
      const seg = this.openSegment();
      for (const e of encoded) seg.absorb(e.parts);
      if (this.wal.bytes >= this.tuning.segmentBytes) await this.rotate();
    });
  }

  /** Closed segments waiting for a seal that can succeed: one failing to seal holds nothing back. */
  private unsealedClosed(): number {
    return [...this.live.keys()].filter((seq) => seq < this.wal.currentSeq && !this.sealFailures.failing(seq)).length;
  }

  private openSegment(): LiveSegment {
    const seq = this.wal.currentSeq;
    let seg = this.live.get(seq);
    if (!seg) this.live.set(seq, (seg = new LiveSegment(seq, Wal.segmentPath(this.wal.dir, seq))));
    return seg;
  }

  private withWal<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.walLock.then(fn);
    this.walLock = p.catch(() => undefined);
    return p;
  }

  /** Closes the open segment and queues its seal. Call inside withWal. */
  private async rotate(): Promise<void> {
    const closed = await this.wal.rotate();
    if (closed === undefined) return;
    const seg = this.live.get(closed);
    if (seg) writeSummary(this.wal.dir, seg);
    if (seg) this.waiting(seg);
    this.schedule(() => this.seal(closed));
  }

  /**
   * A closed segment's seal is queued: when it will wait behind another seal, or its seal would
   * make a columnar copy anyway (many partitions), the copy is made now (wal/live-columns.ts).
   */
  private waiting(seg: LiveSegment): void {
    if (this.unsealedClosed() > 1 || seg.partitions.size > DIRECT_SEAL_MAX_PARTS) this.columns.add(seg);
  }

  // ---------------------------------------------------------------- background jobs

  private schedule<T>(job: () => Promise<T>): Promise<T> {
    const p = this.bg.then(() => (this.closed ? (undefined as T) : job()));
    this.bg = p.catch((err: unknown) => {
      this.opts.log.error({ err }, 'storage background job failed');
      this.problems.report('background_job_failed', (err as Error).message);
    });
    return p;
  }

  private target(): BlockTarget {
    return {
      root: this.root,
      node: this.nodeId,
      // time-based so a deleted block's name is never reused (deferred deletions are keyed by path)
      nextSeq: () => (this.lastSeq = Math.max(this.lastSeq + 1, Date.now())),
    };
  }

  /**
   * Seals one closed WAL segment; on failure the segment stays live and stops holding commits back,
   * and is rewritten and sealed again, or tried again later (seal-failures.ts).
   */
  private async seal(seq: number): Promise<void> {
    const path = Wal.segmentPath(this.wal.dir, seq);
    try {
      await this.sealOnce(seq);
      this.sealFailures.sealed(seq, path);
      this.unreadable.clear(path);
    } catch (err) {
      const next = this.sealFailures.failed(seq, path, err);
      if (next.repair) return this.repair(seq);
      setTimeout(() => void this.schedule(() => this.seal(seq)), next.retryMs).unref();
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
      const r = await repairSegment(this.wal.dir, seq, this.opts.config.eventLimits.maxEventBytes);
      // one synchronous step: the rewritten file's accounting replaces the old one
      this.live.set(seq, r.seg);
      if (old.columns) this.blocks.refs.deleteWhenFree(old.columns);
      this.unreadable.clear(old.path);
      this.opts.log.warn(
        { seq, changed: r.changed, skipped: r.skipped, events: r.seg.count },
        'WAL segment rewritten so it can be sealed',
      );
    } catch (err) {
      this.opts.log.error({ err, seq }, 'cannot rewrite WAL segment');
    } // either way the next failure sets it aside
    this.sealFailures.repaired(seq);
    await this.seal(seq);
  }

  /** Seals one closed WAL segment into blocks and commits (seal.ts; docs/storage.md, "recovery rule"). */
  private async sealOnce(seq: number): Promise<void> {
    const seg = this.live.get(seq);
    if (!seg) return;
    await this.columns.settled(seq);
    const made = await writeSegmentBlocks(this.duck, seg, this.target(), join(this.opts.config.dataDir, 'tmp'));
    const marker = commitSeal(this.wal.dir, seq, made);
    // commit point passed: swap live for blocks in one synchronous step, so scans see one or the other
    for (const b of made) this.blocks.add(b);
    this.live.delete(seq);
    this.blocks.refs.deleteWhenFree(seg.path, () => removeSealedSegment(this.wal.dir, seg, marker));
    this.shared?.kick();
    if (this.tuning.merge) this.schedule(() => this.mergeRound());
  }

  /** One round of merges picked by the policy (merging.ts); each merge commits on its own. */
  mergeRound(force = false): Promise<number> {
    return mergeRound(
      {
        blocks: this.blocks,
        duck: this.duck,
        target: () => this.target(),
        policy: this.tuning.mergePolicy,
        merged: () => this.shared?.kick(),
        unreadable: this.unreadable,
      },
      force,
    );
  }

  /** Registers the one listener told of storage problems (svc's self-log); earlier ones are kept for it. */
  onProblem(listener: ProblemListener): void {
    this.problems.listen(listener);
  }

  /** RetentionSweeper: registers the one listener told of every sweep. */
  onSweep(listener: SweepListener): void {
    this.sweepListener = listener;
  }

  /**
   * RetentionSweeper: deletes whole blocks past their env's retention (retention.ts), in the job
   * order; with a store, every node's blocks, by the one node holding the lease (shared/). A timer
   * sweep that finds the lease taken, or the store down, is skipped.
   */
  async sweep(forced = false): Promise<RetentionReport> {
    const { control, config, clock, log } = this.opts;
    const report = this.shared
      ? await this.shared.sweep(forced)
      : await this.schedule(async () =>
          sweepExpired(
            this.blocks.own(),
            clock.now(),
            (env) => retentionDays(env, control, config),
            (b) => this.blocks.drop(b),
          ),
        );
    if (!report) return { deletedBlocks: 0, deletedEvents: 0, blocks: [], tookMs: 0 };
    if (report.deletedBlocks)
      log.info({ deletedBlocks: report.deletedBlocks, deletedEvents: report.deletedEvents }, 'retention sweep');
    this.sweepListener?.(report, forced);
    return report;
  }

  /** The cluster (SVC_STORE): its operations for the HTTP edge, its cache for benchmarks. */
  get cluster(): SharedBlocks | undefined {
    return this.shared;
  }

  /** What the shared room needs of the engine: its local blocks, retention, the merge trigger. */
  private sharedOptions(store: ObjectStore): SharedBlocksOptions {
    const { config, control, clock, log } = this.opts;
    const local: LocalBlocks = {
      root: this.root,
      list: () => [...this.blocks.own()],
      drop: (blocks) => this.schedule(async () => blocks.forEach((b) => this.blocks.has(b) && this.blocks.drop(b))),
      adopt: (b) => this.blocks.add(b),
    };
    const daysOf = (env: string) => retentionDays(env, control, config);
    const onPublished = () => void (this.tuning.merge && this.schedule(() => this.mergeRound()));
    const { graceMs } = this.opts.tuning ?? {};
    return {
      store,
      node: this.nodeId,
      dataDir: config.dataDir,
      syncSecs: config.blockSyncSecs,
      cacheMaxBytes: config.cacheMaxBytes,
      local,
      problems: this.problems,
      log,
      daysOf,
      now: () => clock.now(),
      onPublished,
      graceMs,
    };
  }

  private startTimers(): void {
    const age = setInterval(
      () => {
        if (this.wal.bytes > 0 && Date.now() - this.wal.openedAt >= this.tuning.segmentAgeMs)
          void this.withWal(() => this.rotate());
      },
      Math.min(1000, this.tuning.segmentAgeMs),
    );
    const sweep = setInterval(() => void this.sweep(), this.opts.config.retentionSweepSecs * 1000);
    const merge = setInterval(() => {
      if (this.tuning.merge) void this.schedule(() => this.mergeRound());
    }, 10_000);
    this.timers = [age, sweep, merge];
    for (const t of this.timers) t.unref();
  }

  // ---------------------------------------------------------------- test and operations hooks

  /** Tests only (SVC_TEST_HOLD_WRITER): lets a held writer drain. */
  releaseWriter(): void {
    this.writer.hold(false);
  }

  /** Seals everything acknowledged so far and waits for background work (tests, benchmarks, shutdown). */
  async flush(): Promise<void> {
    await this.writer.idle();
    await this.withWal(() => this.rotate());
    await this.schedule(async () => undefined);
    await this.shared?.publish();
  }

  /** Block and live counts, for tests and benchmarks. */
  stats(): { blocks: number; blockEvents: number; liveSegments: number; liveEvents: number; blockBytes: number } {
    let liveEvents = 0;
    for (const s of this.live.values()) liveEvents += s.count;
    return { ...this.blocks.totals(), liveSegments: this.live.size, liveEvents };
  }

  /** DuckDB's own memory accounting in MiB by tag (benchmarks: where the memory is). */
  readonly debugMemory = (): Promise<Record<string, number>> => this.duck.memoryByTag();

  listBlocks(): Block[] {
    return [...this.blocks.own()];
  }

  /** Stops timers, commits queued writes, waits for background work. Unsealed data stays in the WAL. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.shared?.close();
    this.closed = true; // queued seals are skipped, writes waiting for one go to the WAL (the next start replays it)
    for (const w of this.sealWaiters.splice(0)) w();
    await this.writer.close();
    await this.withWal(async () => {
      await this.wal.close();
      // the open segment is never appended to again (the next start opens a new one): keep its summary
      const open = this.live.get(this.wal.currentSeq);
      if (open && open.count > 0) writeSummary(this.wal.dir, open);
    });
    await this.bg;
    await this.columns.stop();
    this.duck.close();
  }

  // ---------------------------------------------------------------- read side (EventStore)

  /** A file DuckDB cannot read is left out (reported), and the scan runs over the rest (read/scan-run.ts). */
  scan<T>(
    spec: ScanSpec,
    run: (relation: RelationInfo, exec: (sql: string) => Promise<QueryResult>, stream: StreamRows) => Promise<T>,
  ): Promise<T> {
    return runScan(
      {
        blocks: () => this.blocks.all(),
        live: () => this.live.values(),
        hold: (b, f) => this.blocks.hold(b, f),
        query: (q, sig) => this.duck.query(q, sig),
        stream: (q, sig) => this.duck.stream(q, sig),
        unreadable: this.unreadable,
      },
      spec,
      run,
    );
  }

  /** EventStore: what searches of `envs` leave out because it cannot be read. */
  readWarnings(envs?: string[]): string[] {
    return this.unreadable.warnings(envs);
  }

  partitions(envs?: string[]): PartitionSummary[] {
    return summarizePartitions(this.blocks.all(), this.live.values(), envs);
  }

  fields(spec: Omit<ScanSpec, 'requiredTokens' | 'fields'>): FieldSummary[] {
    return summarizeFields(this.blocks.all(), this.live.values(), spec);
  }

  countByBucket(spec: BucketCountSpec, spanUs: number): Promise<BucketCounts> {
    const readable = <T extends { path: string }>(xs: Iterable<T>) =>
      [...xs].filter((x) => !this.unreadable.has(x.path));
    return countBuckets(
      {
        blocks: readable(this.blocks.all()),
        live: readable(this.live.values()),
        hold: (b, f) => this.blocks.hold(b, f),
        query: (sql) => this.duck.query(sql, spec.signal),
      },
      spec,
      spanUs,
    );
  }
}
