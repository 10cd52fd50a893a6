import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { ControlReader } from '../control/types.js';
import type { Clock } from '../clock/clock.js';
import { Duck } from './duck.js';
import { Wal } from './wal/wal.js';
import { WriterQueue } from './wal/writer-queue.js';
import { partsScratch } from './parts/part-commit.js';
import type { Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { mergeRound } from './merging.js';
import { Deleting } from './deleting.js';
import { DEFAULT_TUNING, type StorageTuning } from './tuning.js';
import { Catalog } from './catalog.js';
import { runScan } from './read/scan-run.js';
import { UnreadableFiles } from './read/unreadable-files.js';
import { summarizeFields, summarizePartitions } from './read/summaries.js';
import { countBuckets, readableSources, type BucketSources } from './read/bucket-counts.js';
import { countValues } from './read/value-counts.js';
import { clearScratch, quarantineTo, recover } from './recovery.js';
import { salvageQuarantined } from './salvage.js';
import { replayWal } from './wal/replay.js';
import { WritePath, type WritePathDeps } from './write-path.js';
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
import type {
  BucketCounts,
  BucketCountSpec,
  CountColumn,
  ValueCounts,
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

/** `observer` (metrics) is told of each seal and merge. */
export interface StorageOptions extends Pick<WritePathDeps, 'observer'> {
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
 * The engine owns the state every stage shares (catalog, job queue, file references); the stages
 * live beside it (recovery.ts, write-path.ts with wal/ and parts/, seal.ts, blocks/, merging.ts,
 * retention.ts, read/). What stays here is their composition: opening, the queue, timers, shutdown.
 */
export class StorageEngine implements EventStore, RetentionSweeper, StorageHandle {
  readonly writer: WriterQueue;
  /** Where decode workers write parts before their commit (parts/part-build.ts); emptied at start. */
  readonly partsDir: string;
  readonly nodeId: string;
  private readonly blocks = new Catalog();
  private readonly tuning: StorageTuning;
  private readonly writes: WritePath;
  private bg: Promise<unknown> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private sweepListener: SweepListener | undefined;
  private lastSeq = 0;
  private closed = false;
  /** With SVC_STORE: publishing, the other nodes' blocks, the cluster's retention (shared/cluster.ts). */
  private shared: SharedBlocks | undefined;
  private readonly unreadable: UnreadableFiles;
  /** Delete by query, this node's side: seal, pick and rewrite blocks (deleting.ts). */
  readonly deleting: Deleting;

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
    this.unreadable = new UnreadableFiles(problems);
    this.writes = new WritePath({
      duck,
      wal,
      blocks: this.blocks,
      unreadable: this.unreadable,
      problems,
      log: opts.log,
      tuning: this.tuning,
      maxEventBytes: opts.config.eventLimits.maxEventBytes,
      dataDir: opts.config.dataDir,
      target: () => this.target(),
      queue: (job) => this.queue(job),
      observer: opts.observer,
      sealed: () => {
        this.shared?.kick();
        if (this.tuning.merge) this.queue(() => this.mergeRound());
      },
    });
    // a caller that will not wait (compat protocols) hears queue_full at once while commits wait for seals
    this.writer = new WriterQueue(opts.config.blockQueueCap, (b) => this.writes.commit(b), {
      hold: opts.config.testHoldWriter,
      backedUp: () => this.writes.backedUp,
      refused: (b) => this.writes.refused(b),
    });
    this.partsDir = partsScratch(opts.config.dataDir);
    const [target, shared] = [() => this.target(), () => this.shared];
    this.deleting = new Deleting(this.blocks, duck, target, this.schedule.bind(this), shared);
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
      (seg) => engine.writes.replayed(seg),
    );
    if (opts.store) engine.blocks.attach((engine.shared = await SharedBlocks.open(engine.sharedOptions(opts.store))));
    engine.startTimers();
    opts.log.info(
      { blocks: engine.blocks.size, replayedSegments: rec.segments.length, node: engine.nodeId },
      'storage open',
    );
    return engine;
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

  /** Queues a job no one waits for: schedule's own handler logs and reports its failure. */
  private queue(job: () => Promise<unknown>): void {
    void this.schedule(job);
  }

  private target(): BlockTarget {
    return {
      root: this.root,
      node: this.nodeId,
      // time-based so a deleted block's name is never reused (deferred deletions are keyed by path)
      nextSeq: () => (this.lastSeq = Math.max(this.lastSeq + 1, Date.now())),
    };
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
        observer: this.opts.observer,
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
   * RetentionSweeper: deletes whole blocks past their env's retention (retention.ts), in job order;
   * with a store, every node's, by the lease holder (shared/); skipped when the lease is taken or the store down.
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
    const onPublished = () => {
      if (this.tuning.merge) this.queue(() => this.mergeRound());
    };
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
          void this.writes.rotateNow();
      },
      Math.min(1000, this.tuning.segmentAgeMs),
    );
    // nothing awaits a timer's sweep: its failure is logged here (unhandled, it would end the process)
    const sweep = setInterval(
      () => void this.sweep().catch((err: unknown) => this.opts.log.error({ err }, 'retention sweep failed')),
      this.opts.config.retentionSweepSecs * 1000,
    );
    const merge = setInterval(() => {
      if (this.tuning.merge) this.queue(() => this.mergeRound());
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
    await this.writes.rotateNow();
    await this.schedule(async () => undefined);
    await this.shared?.publish();
  }

  /** Block and live counts, for tests and benchmarks. */
  stats(): { blocks: number; blockEvents: number; liveSegments: number; liveEvents: number; blockBytes: number } {
    const liveEvents = [...this.writes.live.values()].reduce((n, s) => n + s.count, 0);
    return { ...this.blocks.totals(), liveSegments: this.writes.live.size, liveEvents };
  }

  /** DuckDB's own memory accounting in MiB by tag (benchmarks: where the memory is). */
  readonly debugMemory = (): Promise<Record<string, number>> => this.duck.memoryByTag();

  readonly listBlocks = (): Block[] => [...this.blocks.own()];

  /** Stops timers, commits queued writes, waits for background work. Unsealed data stays in the WAL. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.shared?.close();
    this.closed = true; // queued seals are skipped, writes waiting for one go to the WAL (the next start replays it)
    this.writes.release();
    await this.writer.close();
    await this.writes.close();
    await this.bg;
    await this.writes.columns.stop();
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
        live: () => this.writes.live.values(),
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
    return summarizePartitions(this.blocks.all(), this.writes.live.values(), envs);
  }

  fields(spec: Omit<ScanSpec, 'requiredTokens' | 'fields'>): FieldSummary[] {
    return summarizeFields(this.blocks.all(), this.writes.live.values(), spec);
  }

  countByBucket(spec: BucketCountSpec, spanUs: number): Promise<BucketCounts> {
    return countBuckets(this.countSources(spec), spec, spanUs);
  }

  countByValue(spec: BucketCountSpec, column: CountColumn): Promise<ValueCounts> {
    return countValues(this.countSources(spec), spec, column);
  }

  /** The readable blocks and live segments the metadata counts read, pinned while rows are read. */
  private countSources(spec: BucketCountSpec): BucketSources {
    return readableSources(this.blocks, this.writes.live.values(), this.unreadable, (q) =>
      this.duck.query(q, spec.signal),
    );
  }
}
