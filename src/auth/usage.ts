import type { Logger } from 'pino';
import type { ControlStore } from '../control/store.js';
import { BatchedWrites, WritesBatched } from './batched-writes.js';

/**
 * Last-used times of API keys and ingest tokens, kept in memory and written to the control plane in
 * one batch every interval (never a disk write per request). Listings read through `lastUsed`, so
 * they are current on this node before the flush.
 */
export class UsageTracker extends WritesBatched<string, string> {
  protected readonly writes: BatchedWrites<string, string>;

  constructor(control: ControlStore, log: Logger) {
    super();
    this.writes = new BatchedWrites(control, log, 'last-used times', (doc, batch) => {
      // records deleted meanwhile are skipped
      for (const rec of [...doc.apiKeys, ...doc.ingestTokens]) {
        const t = batch.get(rec.id);
        if (t && (!rec.lastUsedAt || rec.lastUsedAt < t)) rec.lastUsedAt = t;
      }
    });
  }

  touch(id: string, nowMs: number): void {
    this.writes.pending.set(id, new Date(nowMs).toISOString());
  }

  lastUsed(id: string): string | undefined {
    return this.writes.pending.get(id);
  }

  forget(id: string): void {
    this.writes.pending.delete(id);
  }
}
