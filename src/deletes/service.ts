import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { SvcError } from '../errors/svc-error.js';
import type { Clock } from '../clock/clock.js';
import type { ControlReader } from '../control/types.js';
import { parseTime } from '../query/time-range.js';
import type { SelfLog } from '../selflog/types.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import type { StorageEngine } from '../storage/engine.js';
import { Lease } from '../storage/shared/lease.js';
import { DeleteBoard } from './board.js';
import { countPlan, filterQuery } from './filter.js';
import { ended, LocalJobs, overallStatus, type LocalJob } from './records.js';
import { runPart, settleInFlight } from './run-part.js';
import type { AskedBy, DeleteJobView, DeletePart, DeleteRequest, DeleteSpec } from './types.js';

/** What a caller asks (POST /api/admin/delete), checked by the route's schema. */
export interface DeleteAsk {
  env: string;
  index?: string;
  from: string;
  to: string;
  query: string;
}

export interface DeleteJobsOptions {
  engine: StorageEngine;
  control: ControlReader;
  clock: Clock;
  log: Logger;
  selflog: SelfLog;
  dataDir: string;
  /** With SVC_STORE: jobs are shared, every node runs its part, one node at a time (board.ts). */
  store?: ObjectStore;
  /** How often the store is read for other nodes' jobs and cancels (SVC_BLOCK_SYNC_SECS). */
  syncSecs: number;
}

const DELETE_LEASE = 'leases/delete.json';

/**
 * Delete by query (docs/delete.md; docs/decisions/0026-delete-by-query.md): dry runs, jobs that
 * rewrite this node's blocks without the matching events, their progress, cancel. Jobs run one at
 * a time on a node, in the order they became known; a job's state is saved after every block and
 * a job a stop or a crash interrupted resumes when the node starts again.
 */
export class DeleteJobs {
  private readonly local: LocalJobs;
  private readonly board: DeleteBoard | undefined;
  private readonly lease: Lease | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Part writes to the store, in order (a slow older write must not land after a newer one). */
  private mirrors: Promise<void> = Promise.resolve();
  /** The job running now: a cancel marks this object, which the runner saves after every block. */
  private current: LocalJob | undefined;

  constructor(private readonly o: DeleteJobsOptions) {
    this.local = new LocalJobs(o.dataDir);
    if (o.store) {
      this.board = new DeleteBoard(o.store);
      this.lease = new Lease(o.store, DELETE_LEASE, o.engine.nodeId, 60_000);
    }
  }

  /** Resumes the jobs a stop or crash interrupted, then (with a store) looks for other nodes' jobs. */
  start(): void {
    const names = new Set(this.o.engine.listBlocks().map((b) => b.meta.name));
    for (const job of this.local.all()) {
      if (ended(job.part.status)) continue;
      settleInFlight(job, names);
      this.local.save(job);
      this.enqueue(job);
    }
    if (!this.board) return;
    this.timer = setInterval(() => void this.poll(), this.o.syncSecs * 1000);
    this.timer.unref();
  }

  /** Checks and normalizes a request: a known env, a range with from before to, a filter-only query. */
  spec(ask: DeleteAsk): DeleteSpec {
    if (!this.o.control.env(ask.env))
      throw new SvcError('unknown_environment', `env: unknown environment "${ask.env}"`);
    const now = this.o.clock.now();
    const fromMs = parseTime(ask.from, now);
    const toMs = parseTime(ask.to, now);
    if (fromMs >= toMs)
      throw new SvcError('invalid_time', `from "${ask.from}" is not before to "${ask.to}": want from before to`);
    filterQuery(ask.query);
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      env: ask.env,
      index: ask.index ?? null,
      from: iso(fromMs),
      to: iso(toMs),
      fromUs: fromMs * 1000,
      toUs: toMs * 1000,
      query: ask.query,
    };
  }

  /** The events a job would delete now: a search's count of the query over the range. */
  async dryRun(spec: DeleteSpec): Promise<number> {
    const plan = countPlan(spec, this.o.clock.now());
    return this.o.engine.scan(plan.scan, async (rel, exec) => Number((await exec(plan.countSql(rel))).rows[0][0]));
  }

  /** Starts a job (with a store: shared with the running nodes, each of which runs its part). */
  async create(spec: DeleteSpec, askedBy: AskedBy): Promise<DeleteJobView> {
    const node = this.o.engine.nodeId;
    const cluster = this.o.engine.cluster;
    const running = cluster
      ? (await cluster.nodes()).filter((n) => !n.retired && n.state === 'running').map((n) => n.id)
      : [];
    // this node runs its part even before its first status reached the store
    const nodes = [...new Set([node, ...running])];
    const request: DeleteRequest = {
      v: 1,
      id: `del-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`,
      spec,
      askedBy,
      node,
      createdAt: new Date(this.o.clock.now()).toISOString(),
      nodes,
    };
    await this.board?.putRequest(request);
    this.adopt(request);
    return this.view(request.id);
  }

  /** One job, its parts summed; throws not_found. */
  async view(id: string): Promise<DeleteJobView> {
    const mine = this.local.get(id);
    const request = mine?.request ?? (await this.board?.request(id));
    if (!request) throw new SvcError('not_found', `no delete job "${id}"`);
    const stored = this.board ? await this.board.parts(id) : [];
    const parts = request.nodes.map(
      (n): DeletePart =>
        (n === this.o.engine.nodeId ? mine?.part : undefined) ??
        stored.find((p) => p.node === n) ?? {
          v: 1,
          id,
          node: n,
          status: 'queued',
          blocksDone: 0,
          blocksTotal: 0,
          deleted: 0,
        },
    );
    const { spec } = request;
    const failed = parts.find((p) => p.error);
    return {
      id,
      status: overallStatus(parts),
      env: spec.env,
      index: spec.index,
      from: spec.from,
      to: spec.to,
      query: spec.query,
      askedBy: request.askedBy,
      node: request.node,
      createdAt: request.createdAt,
      progress: {
        blocksDone: parts.reduce((n, p) => n + p.blocksDone, 0),
        blocksTotal: parts.reduce((n, p) => n + p.blocksTotal, 0),
      },
      deletedEvents: parts.reduce((n, p) => n + p.deleted, 0),
      ...(failed ? { error: `node ${failed.node}: ${failed.error}` } : {}),
      nodes: parts.map((p) => ({
        node: p.node,
        status: p.status,
        blocksDone: p.blocksDone,
        blocksTotal: p.blocksTotal,
        deletedEvents: p.deleted,
      })),
    };
  }

  /** Every job known here (with a store, every node's), newest first. */
  async list(): Promise<DeleteJobView[]> {
    const ids = new Set([...this.local.all().map((j) => j.request.id), ...((await this.board?.ids()) ?? [])]);
    const views = await Promise.all([...ids].map((id) => this.view(id)));
    return views.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  }

  /** Asks a job to stop after the block it is on; blocks already rewritten stay rewritten. */
  async cancel(id: string): Promise<DeleteJobView> {
    const view = await this.view(id);
    await this.board?.cancel(id);
    const mine = this.current?.request.id === id ? this.current : this.local.get(id);
    if (mine && !ended(mine.part.status)) {
      mine.cancelled = true;
      if (mine.part.status === 'queued') {
        mine.part.status = 'cancelled';
        mine.part.finishedAt = new Date(this.o.clock.now()).toISOString();
      }
      this.local.save(mine);
      this.mirror(mine);
    }
    return ended(view.status) ? view : this.view(id);
  }

  /** Waits for the job in progress to reach its next block and stops; it resumes at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.polling;
    await this.queue;
    await this.mirrors;
  }

  /** Tests: waits for every job known now to end on this node. */
  async idle(): Promise<void> {
    await this.queue;
    await this.mirrors;
  }

  /** Takes a request on as this node's part (queued) and runs it in turn. */
  private adopt(request: DeleteRequest): void {
    const part: DeletePart = {
      v: 1,
      id: request.id,
      node: this.o.engine.nodeId,
      status: 'queued',
      blocksDone: 0,
      blocksTotal: 0,
      deleted: 0,
    };
    const job: LocalJob = { request, part };
    this.local.save(job);
    this.mirror(job);
    this.enqueue(job);
  }

  private enqueue(job: LocalJob): void {
    this.queue = this.queue.then(() => this.run(job));
  }

  private async run(job: LocalJob): Promise<void> {
    // a cancel may have come while it waited
    const now = this.local.get(job.request.id) ?? job;
    if (this.closed || ended(now.part.status)) return;
    this.current = now;
    await runPart(
      {
        engine: this.o.engine,
        now: () => this.o.clock.now(),
        log: this.o.log,
        save: (j) => {
          this.local.save(j);
          this.mirror(j);
        },
        cancelled: async (j) =>
          j.cancelled === true || ((await this.board?.cancelled(j.request.id).catch(() => false)) ?? false),
        closing: () => this.closed,
        lease: this.lease,
      },
      now,
    )
      .catch((err: unknown) => this.o.log.error({ err }, 'delete job failed'))
      .finally(() => (this.current = undefined));
    if (ended(now.part.status)) this.record(now);
  }

  /** The `_svclogs` record of a part's end: who asked, what, and how many events went here. */
  private record(job: LocalJob): void {
    const { spec, askedBy } = job.request;
    this.o.selflog.service(
      'delete_job',
      {
        job_id: job.request.id,
        status: job.part.status,
        asked_by: askedBy.name,
        principal_kind: askedBy.kind,
        target_env: spec.env,
        target_index: spec.index ?? undefined,
        from: spec.from,
        to: spec.to,
        query: spec.query,
        deleted_events: job.part.deleted,
        blocks_rewritten: job.part.blocksDone,
        error: job.part.error,
      },
      job.part.status === 'failed' ? 'error' : 'info',
    );
  }

  /** With a store: this node's part for the others to read (best effort: the next save writes it again). */
  private mirror(job: LocalJob): void {
    const board = this.board;
    if (!board) return;
    const part = structuredClone(job.part);
    this.mirrors = this.mirrors
      .then(() => board.putPart(part))
      .catch((err: unknown) => this.o.log.warn({ err }, 'cannot publish a delete part'));
  }

  /** With a store: the jobs other nodes were asked for that list this node, and not yet known here. */
  private poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    if (!this.board || this.closed) return;
    try {
      for (const id of await this.board.ids()) {
        if (this.local.get(id)) continue;
        const r = await this.board.request(id);
        if (r && r.nodes.includes(this.o.engine.nodeId)) this.adopt(r);
      }
    } catch (err) {
      this.o.log.warn({ err }, 'cannot read delete jobs from the shared store');
    }
  }
}
