import type { Clock } from '../clock/clock.js';
import { SvcError } from '../errors/svc-error.js';

export interface RateLimitOptions {
  /** Failed attempts allowed per key within the window. */
  maxFailures: number;
  windowMs: number;
}

/**
 * Counts failed logins per key (a user, an address, a user at an address) in a fixed window. While
 * a key is over its limit every attempt, even with the right password, is refused with rate_limited
 * (429, Retry-After). In memory and per node: a cluster multiplies the allowance by its node count.
 */
export class LoginRateLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly opts: RateLimitOptions = { maxFailures: 10, windowMs: 15 * 60_000 },
  ) {}

  /** Throws rate_limited if any of `keys` is over its limit. */
  check(keys: string[]): void {
    const now = this.clock.now();
    for (const k of keys) {
      const f = this.current(k, now);
      if (f && f.count >= this.opts.maxFailures) {
        throw new SvcError('rate_limited', 'too many failed logins; try again later', {
          retryAfterSecs: (f.resetAt - now) / 1000,
        });
      }
    }
  }

  /** True while `key` is at or over the limiter's own limit. */
  isOver(key: string): boolean {
    const f = this.current(key, this.clock.now());
    return f !== undefined && f.count >= this.opts.maxFailures;
  }

  private current(key: string, now: number): { count: number; resetAt: number } | undefined {
    const f = this.failures.get(key);
    if (f && f.resetAt <= now) this.failures.delete(key);
    return f && f.resetAt > now ? f : undefined;
  }

  fail(keys: string[]): void {
    const now = this.clock.now();
    for (const k of keys) {
      const f = this.failures.get(k);
      if (!f || f.resetAt <= now) this.failures.set(k, { count: 1, resetAt: now + this.opts.windowMs });
      else f.count++;
    }
    if (this.failures.size > 100_000) this.prune(now);
  }

  succeed(keys: string[]): void {
    for (const k of keys) this.failures.delete(k);
  }

  private prune(now: number): void {
    for (const [k, f] of this.failures) if (f.resetAt <= now) this.failures.delete(k);
  }
}
