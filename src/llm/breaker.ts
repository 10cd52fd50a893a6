/**
 * A circuit breaker for the LLM provider: after `threshold` failed calls in a row it opens, and
 * calls fail at once for `openMs` instead of each waiting out timeouts and retries; then one call
 * is let through (half-open): success closes it, failure opens it again.
 */
export class Breaker {
  private failures = 0;
  private openUntil = 0;
  private probing = false;

  constructor(
    private readonly threshold: number,
    private readonly openMs: number,
    private readonly now: () => number,
  ) {}

  /** May a call go out now? (Takes the one half-open probe when the open time is over.) */
  allow(): boolean {
    if (this.failures < this.threshold) return true;
    if (this.now() < this.openUntil || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** When calls may go out again (ms since the epoch); 0 when closed. */
  get retryAt(): number {
    return this.failures >= this.threshold ? this.openUntil : 0;
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
  }

  failure(): void {
    this.failures++;
    this.probing = false;
    if (this.failures >= this.threshold) this.openUntil = this.now() + this.openMs;
  }
}
