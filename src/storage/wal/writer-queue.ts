import type { WriteOptions, Writer } from '../../events/writer.js';
import { batchSize, type WriteBatch } from './batch-encode.js';
import { SvcError } from '../../errors/svc-error.js';

/** Makes a group of batches durable (WAL append + fsync) and visible; called by one drain loop at a time. */
export type CommitFn = (batches: WriteBatch[]) => Promise<void>;

/** Groups committing at once: one in write/fsync while the next is being serialised. */
const MAX_GROUPS_IN_FLIGHT = 2;

interface Pending {
  batch: WriteBatch;
  /** Date.now() when it was queued (health: how long the oldest write has waited). */
  at: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * The bounded writer queue in front of the WAL (the `Writer` every ingest route calls).
 * Capacity counts events accepted but not yet acknowledged. Everything queued is committed as one
 * group (one write + one fsync), then all of its batches resolve: concurrent requests share an
 * fsync. A batch larger than the whole capacity is admitted alone
 * when the queue is empty, so it cannot wait forever.
 */
export class WriterQueue implements Writer {
  private queue: Pending[] = [];
  private queued = 0;
  private readonly roomWaiters: { n: number; go: () => void; at: number }[] = [];
  private inflight = 0;
  /** The oldest `at` of each group being committed. */
  private readonly inflightSince = new Set<{ at: number }>();
  private held: boolean;
  private readonly backedUp: () => boolean;
  private readonly refused: (batch: WriteBatch) => void;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly capacity: number,
    private readonly commit: CommitFn,
    opts: { hold?: boolean; backedUp?: () => boolean; refused?: (batch: WriteBatch) => void } = {},
  ) {
    this.held = opts.hold ?? false;
    this.backedUp = opts.backedUp ?? (() => false);
    this.refused = opts.refused ?? (() => undefined);
  }

  /** Every batch the queue refuses or fails is handed to `refused` once (a batch of parts removes its files). */
  async write(batch: WriteBatch, opts: WriteOptions): Promise<void> {
    try {
      if (opts.gate) await opts.gate();
      await this.admit(batch, opts);
    } catch (e) {
      this.refused(batch);
      throw e;
    }
  }

  private async admit(batch: WriteBatch, opts: WriteOptions): Promise<void> {
    if (this.closed) throw new SvcError('shutting_down', 'cannot write: svc is shutting down');
    const n = batchSize(batch);
    if (n === 0) return;
    // commits are waiting (for the seal backlog): a caller that will not wait hears so now, not
    // after its batch has waited in the queue for as long as the backlog lasts
    if (!opts.wait && this.backedUp()) {
      throw new SvcError('queue_full', 'cannot write now: written events wait for the WAL to be sealed', {
        retryAfterSecs: 1,
      });
    }
    if (!this.fits(n)) {
      if (!opts.wait) {
        throw new SvcError('queue_full', `writer queue is full (${this.queued} of ${this.capacity} events)`, {
          retryAfterSecs: 1,
        });
      }
      const at = Date.now();
      await new Promise<void>((go) => this.roomWaiters.push({ n, go, at }));
      if (this.closed) throw new SvcError('shutting_down', 'cannot write: svc is shutting down');
      return this.enqueue(batch, at); // room was reserved by admitWaiters
    }
    this.queued += n;
    return this.enqueue(batch, Date.now());
  }

  /** Date.now() when the write waiting longest for its acknowledgement arrived; undefined when none waits. */
  oldestWaitingSince(): number | undefined {
    let oldest = Math.min(this.roomWaiters[0]?.at ?? Infinity, this.queue[0]?.at ?? Infinity);
    for (const g of this.inflightSince) oldest = Math.min(oldest, g.at);
    return oldest === Infinity ? undefined : oldest;
  }

  queueDepth(): { queued: number; capacity: number } {
    return { queued: this.queued, capacity: this.capacity };
  }

  /** Tests only (SVC_TEST_HOLD_WRITER): stop or resume draining; queued batches stay queued while held. */
  hold(on: boolean): void {
    this.held = on;
    if (!on) this.kick();
  }

  /** Resolves when nothing is queued or being committed. */
  async idle(): Promise<void> {
    if (this.queued === 0 && this.inflight === 0) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /** Refuses new writes, commits what is queued (a held queue's batches are rejected), then resolves. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.roomWaiters.splice(0)) w.go();
    if (this.held) {
      // a held queue never drains: fail its batches instead of leaving their callers hanging
      const err = new SvcError('shutting_down', 'cannot write: svc is shutting down');
      for (const p of this.queue.splice(0)) p.reject(err);
      this.queued = 0;
      return;
    }
    await this.idle();
  }

  private fits(n: number): boolean {
    // FIFO: a newcomer does not overtake batches already waiting for room
    if (this.roomWaiters.length > 0) return false;
    return this.queued === 0 || this.queued + n <= this.capacity;
  }

  private enqueue(batch: WriteBatch, at: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ batch, at, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    while (!this.held && this.queue.length > 0 && this.inflight < MAX_GROUPS_IN_FLIGHT) this.startGroup();
  }

  /**
   * Commits everything queued as one group. Up to MAX_GROUPS_IN_FLIGHT groups run at once: the
   * next group is serialised on the JS thread while the previous one is in write/fsync (the
   * commit function keeps WAL order); each group is acknowledged after its own fsync.
   */
  private startGroup(): void {
    const group = this.queue;
    this.queue = [];
    let n = 0;
    for (const p of group) n += batchSize(p.batch);
    this.inflight++;
    const since = { at: group[0].at }; // the queue is FIFO: its first batch waited longest
    this.inflightSince.add(since);
    this.commit(group.map((p) => p.batch)).then(
      () => this.finishGroup(group, n, undefined, since),
      (e: unknown) => this.finishGroup(group, n, e ?? new Error('commit failed'), since),
    );
  }

  private finishGroup(group: Pending[], n: number, err: unknown, since: { at: number }): void {
    this.inflightSince.delete(since);
    for (const p of group) {
      if (err === undefined) p.resolve();
      else p.reject(err);
    }
    this.inflight--;
    this.queued -= n;
    this.admitWaiters();
    this.kick();
    if (this.queued === 0 && this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private admitWaiters(): void {
    while (this.roomWaiters.length > 0) {
      const w = this.roomWaiters[0];
      if (this.queued !== 0 && this.queued + w.n > this.capacity) break;
      this.roomWaiters.shift();
      this.queued += w.n; // reserve now so later arrivals cannot take the room
      w.go();
    }
  }
}
