import type { Logger } from 'pino';
import type { ControlStore } from '../control/store.js';

/**
 * Last-used times of API keys and ingest tokens, kept in memory and written to the control plane in
 * one batch every interval (never a disk write per request). Listings read through `lastUsed`, so
 * they are current on this node before the flush.
 */
export class UsageTracker {
  private readonly pending = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly control: ControlStore, private readonly log: Logger) {}

  touch(id: string, nowMs: number): void {
    this.pending.set(id, new Date(nowMs).toISOString());
  }

  lastUsed(id: string): string | undefined {
    return this.pending.get(id);
  }

  forget(id: string): void {
    this.pending.delete(id);
  }

  /** Writes the pending times; records deleted meanwhile are skipped. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = new Map(this.pending);
    await this.control.mutate((doc) => {
      for (const rec of [...doc.apiKeys, ...doc.ingestTokens]) {
        const t = batch.get(rec.id);
        if (t && (!rec.lastUsedAt || rec.lastUsedAt < t)) rec.lastUsedAt = t;
      }
    });
    for (const [id, t] of batch) if (this.pending.get(id) === t) this.pending.delete(id);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.flush().catch((e: unknown) => this.log.error({ err: e }, 'cannot record last-used times'));
    }, intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch((e: unknown) => this.log.error({ err: e }, 'cannot record last-used times'));
  }
}
