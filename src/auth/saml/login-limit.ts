import type { Clock } from '../../clock/clock.js';
import { SvcError } from '../../errors/svc-error.js';

/** Sign-ins one address may start per window: a whole office behind one NAT signing in at nine is far below it. */
export const LOGINS_PER_ADDRESS = 60;
export const LOGIN_WINDOW_MS = 60_000;
/** Addresses tracked at once; beyond it the oldest windows are forgotten (an address then starts afresh). */
const MAX_ADDRESSES = 100_000;

/**
 * A fixed-window count of `GET /api/auth/saml/login` per client address. Starting a login writes
 * nothing and costs a MAC and a redirect; the limit keeps one address from turning that into load or
 * into a stream of IdP redirects. In memory and per node. Called from one route; not async.
 */
export class SamlLoginLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly max = LOGINS_PER_ADDRESS,
    private readonly windowMs = LOGIN_WINDOW_MS,
  ) {}

  /** Counts one login from `address`; throws rate_limited (429, Retry-After) beyond the limit. */
  take(address: string): void {
    const now = this.clock.now();
    let w = this.windows.get(address);
    if (!w || w.resetAt <= now) {
      if (w) this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) this.forget(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(address, w);
    }
    if (w.count >= this.max) {
      throw new SvcError('rate_limited', 'too many single sign-on attempts from this address; try again later', {
        retryAfterSecs: (w.resetAt - now) / 1000,
      });
    }
    w.count++;
  }

  private forget(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    // still full (many addresses at once): the oldest windows go, insertion order is age order
    for (const k of this.windows.keys()) {
      if (this.windows.size < MAX_ADDRESSES) break;
      this.windows.delete(k);
    }
  }
}
