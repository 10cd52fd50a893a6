import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { LogEvent } from '../events/event.js';
import type { Writer } from '../events/writer.js';
import { isSvcError } from '../errors/svc-error.js';
import { defaultLevel, mcpCallEvent, serviceEvent } from './records.js';
import type { DetailFor, McpCallRecord, SelfLog, SelfLogLevel, SelfLogStats, ServiceEventName } from './types.js';

export interface SelfLogOptions {
  writer: Writer;
  clock: Clock;
  /** The process log: drops and write failures are reported here, never into the self-log. */
  log: Logger;
  /** Records held while the writer is busy or full (default 1000); beyond it records are dropped. */
  capacity?: number;
  /** Records per write (default 200). */
  batchSize?: number;
  /** Pause after the writer refused a batch as queue_full (default 1000 ms). */
  retryAfterMs?: number;
  /** Pause after storage could not write a batch (storage_unavailable: disk full, read-only); default: the error's Retry-After. */
  storageRetryMs?: number;
  /** Longest close() waits for the buffer to drain (default 3000 ms). */
  closeTimeoutMs?: number;
  /** SVC_NODE_ID, as field `node` of every record: with a shared store `_svclogs` holds every node's. */
  node?: string;
}

const WARN_EVERY_MS = 60_000;

/**
 * The buffered self-log (see README.md beside this file).
 * Recording is a synchronous push onto a bounded array; one background loop at a time hands
 * batches to the writer with `wait: false`. It never calls itself: failures go to the process log.
 */
export class BufferedSelfLog implements SelfLog {
  private readonly queue: LogEvent[] = [];
  private readonly counters = { written: 0, dropped: 0 };
  private draining: Promise<void> | null = null;
  private pausedUntil = 0;
  /** Ends the pause the background loop is waiting out (flush and close do not wait for it). */
  private endPause: (() => void) | undefined;
  private closed = false;
  private lastWarnMs = 0;
  /** While storage cannot write: since when, and the drop count then (told once it writes again). */
  private outage: { since: number; droppedBefore: number; why: string } | undefined;
  private readonly capacity: number;
  private readonly batchSize: number;
  private readonly retryAfterMs: number;
  private readonly closeTimeoutMs: number;

  constructor(private readonly opts: SelfLogOptions) {
    this.capacity = opts.capacity ?? 1000;
    this.batchSize = opts.batchSize ?? 200;
    this.retryAfterMs = opts.retryAfterMs ?? 1000;
    this.closeTimeoutMs = opts.closeTimeoutMs ?? 3000;
  }

  service<E extends ServiceEventName>(event: E, detail: DetailFor<E>, level?: SelfLogLevel): void {
    this.guard(() => this.tagged(serviceEvent(event, detail, level ?? defaultLevel(event), this.opts.clock.now())));
  }

  mcpCall(rec: McpCallRecord): void {
    this.guard(() => this.tagged(mcpCallEvent(rec, this.opts.clock.now())));
  }

  private tagged(e: LogEvent): LogEvent {
    if (this.opts.node) e.fields.node = this.opts.node;
    return e;
  }

  stats(): SelfLogStats {
    return { queued: this.queue.length, ...this.counters };
  }

  async flush(): Promise<void> {
    // bounded: a writer that stays full must not keep the caller waiting forever
    for (let round = 0; round < 5 && (this.queue.length > 0 || this.draining); round++) {
      this.endPause?.();
      if (!this.draining) this.kick(true);
      await this.draining;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((res) => (timer = setTimeout(res, this.closeTimeoutMs)));
    await Promise.race([this.flush(), timeout]);
    clearTimeout(timer);
    this.closed = true;
    this.drop(this.queue.splice(0).length, 'closed');
  }

  /** Builds and enqueues a record; nothing a caller passes can make this throw. */
  private guard(build: () => LogEvent): void {
    try {
      if (this.closed) return this.drop(1, 'closed');
      if (this.queue.length >= this.capacity) return this.drop(1, 'buffer full');
      this.queue.push(build());
      this.kick(false);
    } catch (err) {
      this.drop(1, 'cannot build record', err);
    }
  }

  /** Starts the background loop unless one runs; `force` ignores the queue_full pause (flush, close). */
  private kick(force: boolean): void {
    if (this.draining || this.queue.length === 0) return;
    const wait = force ? 0 : Math.max(0, this.pausedUntil - Date.now());
    this.draining = new Promise<void>((res) => {
      if (wait === 0) return void setImmediate(res);
      const t = setTimeout(res, wait);
      this.endPause = () => {
        clearTimeout(t);
        res();
      };
    })
      .then(() => {
        this.endPause = undefined;
        return this.drain();
      })
      .finally(() => {
        this.draining = null;
        if (this.queue.length > 0 && !this.closed) this.kick(false);
      });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      try {
        await this.opts.writer.write(batch, { wait: false });
        this.counters.written += batch.length;
        if (this.outage) this.recovered();
      } catch (err) {
        if (isSvcError(err) && (err.code === 'queue_full' || err.code === 'storage_unavailable')) {
          // keep the batch (up to capacity) and pause: a full writer queue is the moment not to add
          // load, and a full or read-only disk may come back (the records wait for it, bounded)
          const storage = err.code === 'storage_unavailable';
          if (storage && !this.outage)
            this.outage = { since: Date.now(), droppedBefore: this.counters.dropped, why: err.message };
          const room = Math.max(0, this.capacity - this.queue.length);
          this.queue.unshift(...batch.slice(0, room));
          this.drop(
            batch.length - Math.min(room, batch.length),
            storage ? 'storage cannot write' : 'writer queue full',
            err,
          );
          this.pausedUntil =
            Date.now() + (storage ? (this.opts.storageRetryMs ?? (err.retryAfterSecs ?? 5) * 1000) : this.retryAfterMs);
          return;
        }
        this.drop(batch.length, 'writer refused', err);
      }
    }
  }

  /** Storage writes again: the records held meanwhile are being written; tell how many could not be held. */
  private recovered(): void {
    const o = this.outage!;
    this.outage = undefined;
    const dropped = this.counters.dropped - o.droppedBefore;
    const secs = Math.round((Date.now() - o.since) / 1000);
    try {
      const detail = { dropped, outageSecs: secs, cause: o.why };
      if (dropped > 0)
        this.opts.log.warn(
          detail,
          `self-log writes again after ${secs} s; ${dropped} records could not be held meanwhile and were dropped`,
        );
      else
        this.opts.log.info(detail, `self-log writes again after ${secs} s; every record was held and is written now`);
    } catch {
      // the process log failing must not reach the caller either
    }
  }

  private drop(n: number, why: string, err?: unknown): void {
    if (n <= 0) return;
    this.counters.dropped += n;
    const now = Date.now();
    if (now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    try {
      this.opts.log.warn({ err, why, dropped: this.counters.dropped }, 'self-log records dropped');
    } catch {
      // the process log failing must not reach the caller either
    }
  }
}

export function createSelfLog(opts: SelfLogOptions): SelfLog {
  return new BufferedSelfLog(opts);
}
