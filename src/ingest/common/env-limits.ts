import type { Clock } from '../../clock/clock.js';
import type { ControlReader } from '../../control/types.js';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Per-environment ingest limits (docs/limits.md, docs/decisions/0027-per-environment-limits.md):
 * events/s and bytes/s, each a token bucket per env that fills at its rate up to one second of it.
 *
 * A request passes while the bucket holds anything and takes all it needs, leaving the bucket in
 * debt when it is larger than what is there; the next ones wait (native ingest, syslog) or are
 * refused with rate_limited and the seconds to wait (compatibility protocols) until the debt is
 * paid off. So the long-run rate is the limit exactly, a burst is at most one second of it plus one
 * request, a request larger than the burst still passes, and whether a request passes is known
 * before its body is decoded (precheck): an env pushed past its limit costs little more than
 * reading its requests. A waiting caller has reserved its share first, so an env's waiters keep
 * their order. Each env has its own buckets and nothing is shared or locked while a caller waits (a
 * timer per waiter), so an env at its limit never slows another.
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
  /** Below zero: the debt a request larger than what was there left, paid off by the refill. */
  private tokens: number;
  private at: number;

  constructor(
    readonly rate: number,
    now: number,
  ) {
    this.tokens = rate;
    this.at = now;
  }

  /** Ms until the bucket holds something again (0: a request may pass now, whatever its size). */
  waitMs(now: number): number {
    this.refill(now);
    // +1 ms: at exactly zero the bucket holds nothing yet
    return this.tokens > 0 ? 0 : (-this.tokens / this.rate) * 1000 + 1;
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
  /**
   * While the env is in debt: until when the one request let through precheck (being decoded) has
   * to reserve its share. Others are refused meanwhile: what that request reserves would put them
   * past the bound anyway, after their decoding (CPU every env shares) was spent.
   */
  probeUntil?: number;
}

/** How long a request let through precheck while its env is in debt may take to decode (then the next may try). */
const PROBE_MS = 1000;

/** Nothing to give back: the env has no limit, or had room with nobody waiting. */
const NO_TURN = (): void => undefined;

export class EnvIngestLimiter {
  private readonly buckets = new Map<string, EnvBuckets>();
  /** Per env: settles when the last request in its line has taken its share (see waitTurn). */
  private readonly lines = new Map<string, Promise<void>>();

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
    const wait = Math.max(b.events?.waitMs(now) ?? 0, b.bytes?.waitMs(now) ?? 0);
    if (wait > opts.maxWaitMs) throw this.refusal(charge.env, wait);
    b.probeUntil = undefined;
    b.events?.take(charge.events);
    b.bytes?.take(charge.bytes);
    // setTimeout takes at most 2^31-1 ms (~24 days): only a syslog batch with no bound on its wait gets near
    if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, 2 ** 31 - 1)));
  }

  /**
   * Throws rate_limited when a request of `env` would wait longer than `maxWaitMs` (whatever its
   * size: see above): checked before a body is decompressed and decoded, so a client that keeps
   * pushing an env past its limit costs little more than its requests (the CPU its decoding would
   * take is every env's).
   */
  precheck(env: string, maxWaitMs: number): void {
    const b = this.bucketsOf(env);
    if (!b.events && !b.bytes) return;
    const now = this.clock.now();
    const wait = Math.max(b.events?.waitMs(now) ?? 0, b.bytes?.waitMs(now) ?? 0);
    if (wait > maxWaitMs) throw this.refusal(env, wait);
    if (wait === 0) return; // the bucket holds something: every request may go on
    // in debt: one request at a time goes on to decode and reserve
    if (b.probeUntil !== undefined && now < b.probeUntil) throw this.refusal(env, wait);
    b.probeUntil = now + PROBE_MS;
  }

  /**
   * Native ingest's wait, before its body is decompressed and decoded: while the env is in debt (or
   * others already wait), requests queue in arrival order, each waiting until the buckets hold
   * something again and then going on alone to decode and take its share; the one after it waits
   * for that (`done`, given back once the share is taken or the request failed). So an env past its
   * limit holds its waiting requests as their raw bodies, not as decoded batches (memory and GC
   * work every env shares), and waits instead of hearing 429 while the wait stays under
   * `maxWaitMs`. Rejects rate_limited when the wait would be longer. Resolves at once with a no-op
   * when the env has no limit, or room and nobody ahead.
   */
  async waitTurn(env: string, maxWaitMs: number): Promise<() => void> {
    const b = this.bucketsOf(env);
    if (!b.events && !b.bytes) return NO_TURN;
    const ahead = this.lines.get(env);
    const start = this.clock.now();
    if (ahead === undefined && this.waitOf(b, start) === 0) return NO_TURN;
    let leave!: () => void;
    const mine = new Promise<void>((r) => (leave = r));
    this.lines.set(env, mine);
    let left = false;
    const done = () => {
      if (left) return;
      left = true;
      leave();
      if (this.lines.get(env) === mine) this.lines.delete(env);
    };
    try {
      await ahead;
      for (;;) {
        const now = this.clock.now();
        const wait = this.waitOf(this.bucketsOf(env), now);
        if (wait === 0) return done;
        if (now + wait - start > maxWaitMs) throw this.refusal(env, wait);
        await new Promise((r) => setTimeout(r, Math.min(wait, 2 ** 31 - 1)));
      }
    } catch (e) {
      done();
      throw e;
    }
  }

  private waitOf(b: EnvBuckets, now: number): number {
    return Math.max(b.events?.waitMs(now) ?? 0, b.bytes?.waitMs(now) ?? 0);
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
