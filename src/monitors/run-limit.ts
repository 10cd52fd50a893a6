import type { Clock } from '../clock/clock.js';
import { SvcError } from '../errors/svc-error.js';

/**
 * Manual runs per principal (SVC_MONITOR_RUNS_PER_MINUTE): a token bucket of `perMinute` runs,
 * refilled evenly over the minute. A run sends webhooks at once: without a limit, "run now" in a
 * loop is a way to make svc send requests as fast as a caller likes. In memory and per node.
 */
export class RunLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly perMinute: number,
  ) {}

  /** Takes one run from `key`'s bucket; throws rate_limited (with the wait) when it is empty. */
  take(key: string): void {
    const now = this.clock.now();
    const rate = this.perMinute / 60_000;
    const b = this.buckets.get(key);
    const tokens = b ? Math.min(this.perMinute, b.tokens + (now - b.at) * rate) : this.perMinute;
    if (tokens < 1) {
      throw new SvcError('rate_limited', `at most ${this.perMinute} manual runs a minute; try again shortly`, {
        retryAfterSecs: Math.ceil((1 - tokens) / rate / 1000),
      });
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > 10_000) this.prune(now);
  }

  /** Forgets buckets that have filled up again (they equal a new one). */
  private prune(now: number): void {
    for (const [k, b] of this.buckets)
      if (b.tokens + (now - b.at) * (this.perMinute / 60_000) >= this.perMinute) this.buckets.delete(k);
  }
}
