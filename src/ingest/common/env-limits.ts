import type { Clock } from '../../clock/clock.js';
import type { ControlReader } from '../../control/types.js';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Per-environment ingest limits (docs/limits.md, docs/decisions/0027-per-environment-limits.md):
 * events/s and bytes/s, each a token bucket per env that holds one second of its rate (the burst).
 *
 * A request reserves its events and bytes at once; when the buckets cannot pay yet it waits for
 * them (native ingest, syslog) or is refused with rate_limited and the seconds to wait
 * (compatibility protocols). Reserving before waiting keeps an env's waiters in arrival order and
 * the env's average at its rate; a request larger than the burst passes once the bucket is full
 * and leaves it in debt. Each env has its own buckets and nothing is shared or locked while a
 * caller waits (a timer per waiter), so an env at its limit never slows another.
 *
 * Per node: in a cluster each node enforces the whole rate for what it receives.
 * Single-threaded (the event loop); the limits are read from the control plane on every call, so
 * a change applies to the next request.
 */
export interface IngestCharge {
  env: string;
  events: number;
  bytes: number;
}

export interface ThrottleOptions {
  /**
   * The longest a caller will wait; 0: never wait (compatibility protocols). A reservation that would
   * wait longer is refused with rate_limited, its Retry-After the wait it would have needed.
   */
  maxWaitMs: number;
}

/** Native ingest waits this long at most for its env's buckets, then answers 429 (as the issue asks: bounded). */
export const NATIVE_MAX_WAIT_MS = 30_000;

class Bucket {
  /** May go below zero: a reservation larger than what is there is paid off by the refill. */
  private tokens: number;
  private at: number;

  constructor(
    readonly rate: number,
    now: number,
  ) {
    this.tokens = rate;
    this.at = now;
  }

  /** Ms until `n` (capped at the burst, so any request can pass once the bucket is full) is there. */
  waitMs(n: number, now: number): number {
    this.refill(now);
    const need = Math.min(n, this.rate);
    return this.tokens >= need ? 0 : ((need - this.tokens) / this.rate) * 1000;
  }

  take(n: number): void {
    this.tokens -= n;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
  }
}

interface EnvBuckets {
  events?: Bucket;
  bytes?: Bucket;
}

export class EnvIngestLimiter {
  private readonly buckets = new Map<string, EnvBuckets>();

  constructor(
    private readonly control: Pick<ControlReader, 'env'>,
    private readonly clock: Clock,
  ) {}

  /**
   * Resolves when `charge` may be written (at once when its env has no limit or room); rejects with
   * rate_limited (retryAfterSecs set) when it would wait longer than `opts.maxWaitMs`.
   */
  async throttle(charge: IngestCharge, opts: ThrottleOptions): Promise<void> {
    const b = this.bucketsOf(charge.env);
    if (!b.events && !b.bytes) return; // fast path: no limit on this env
    const now = this.clock.now();
    const wait = Math.max(b.events?.waitMs(charge.events, now) ?? 0, b.bytes?.waitMs(charge.bytes, now) ?? 0);
    if (wait > opts.maxWaitMs) throw this.refusal(charge.env, wait);
    b.events?.take(charge.events);
    b.bytes?.take(charge.bytes);
    // setTimeout takes at most 2^31-1 ms (~24 days): only a syslog batch with no bound on its wait gets near
    if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, 2 ** 31 - 1)));
  }

  /** The env's buckets, made again when an admin changed its rates (a change starts with a full burst). */
  private bucketsOf(env: string): EnvBuckets {
    const rec = this.control.env(env);
    const events = rec?.ingestEventsPerSec;
    const bytes = rec?.ingestBytesPerSec;
    let b = this.buckets.get(env);
    if (!b || b.events?.rate !== events || b.bytes?.rate !== bytes) {
      const now = this.clock.now();
      b = {
        events: events === undefined ? undefined : new Bucket(events, now),
        bytes: bytes === undefined ? undefined : new Bucket(bytes, now),
      };
      if (events === undefined && bytes === undefined) this.buckets.delete(env);
      else this.buckets.set(env, b);
    }
    return b;
  }

  private refusal(env: string, waitMs: number): SvcError {
    const rec = this.control.env(env);
    const rates = [
      rec?.ingestEventsPerSec !== undefined ? `${rec.ingestEventsPerSec} events/s` : '',
      rec?.ingestBytesPerSec !== undefined ? `${rec.ingestBytesPerSec} bytes/s` : '',
    ].filter(Boolean);
    const secs = Math.max(1, Math.ceil(waitMs / 1000));
    return new SvcError(
      'rate_limited',
      `environment "${env}" is over its ingest limit (${rates.join(', ')} on this node); retry after ${secs} s`,
      { retryAfterSecs: secs, details: { env } },
    );
  }
}
