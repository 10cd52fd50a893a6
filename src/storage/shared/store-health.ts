import type { Logger } from 'pino';
import type { ProblemReporter } from '../problems.js';

/**
 * Whether the shared store answers, as the uploader and the syncer find it. An outage is told once
 * (`storage_problem` kind `store_unavailable` in the self-log) when it starts and once when it ends
 * (`resolved`), however many calls fail in between; `GET /api/health` shows it meanwhile.
 */
export class StoreHealth {
  private downSince: number | undefined;
  private lastError: string | undefined;

  constructor(
    private readonly location: string,
    private readonly problems: ProblemReporter,
    private readonly log: Logger,
  ) {}

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** ms since the epoch when the outage began; undefined while the store answers. */
  get since(): number | undefined {
    return this.downSince;
  }

  get error(): string | undefined {
    return this.lastError;
  }

  /** A call to the store failed after the store's own retries. `doing`: what for ("publishing", "syncing"). */
  failed(err: unknown, doing: string): void {
    this.lastError = (err as Error).message;
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    this.log.error({ err, store: this.location }, `shared store unavailable while ${doing}`);
    this.problems.report(
      'store_unavailable',
      `shared store ${this.location} unavailable while ${doing}: ${this.lastError}; sealed blocks wait on local disk and are published when it answers again`,
    );
  }

  /** A call to the store succeeded. */
  ok(): void {
    if (this.downSince === undefined) return;
    const secs = Math.round((Date.now() - this.downSince) / 1000);
    this.downSince = undefined;
    this.lastError = undefined;
    this.log.info({ store: this.location, downSecs: secs }, 'shared store answers again');
    this.problems.resolve('store_unavailable', `shared store ${this.location} answers again after ${secs} s`);
  }
}
