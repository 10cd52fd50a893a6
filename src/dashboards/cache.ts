import type { CacheOutcome } from './types.js';

export type { CacheOutcome };

export interface CacheLimits {
  entries: number;
  bytes: number;
  /** An answer larger than this is not kept (it would push out many small ones). */
  entryBytes: number;
}

interface Entry<T> {
  value: T;
  bytes: number;
  expiresAt: number;
}

/**
 * The answers of panel runs, by key (the run's substituted query, env, index, resolved range and
 * the caller's effective access: runner.ts makes it), each kept for its own time to live and
 * bounded in entries and bytes (least recently used first out). Identical runs in flight share one
 * run. Errors are never kept. Single-threaded (Node): no locking; `get` may be called concurrently.
 */
export class AnswerCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private bytes = 0;
  /** Runs started, answers from the cache, answers shared with a run in flight: for tests and the docs' figures. */
  readonly counts = { runs: 0, hits: 0, shared: 0 };

  constructor(
    private readonly limits: CacheLimits,
    private readonly now: () => number,
  ) {}

  /** The answer of `key`: kept, in flight, or from `run` (kept for `ttlMs` once it resolves). */
  async get(key: string, ttlMs: number, run: () => Promise<T>): Promise<{ value: T; cache: CacheOutcome }> {
    const kept = this.entries.get(key);
    if (kept && kept.expiresAt > this.now()) {
      // most recently used goes last: Map keeps insertion order
      this.entries.delete(key);
      this.entries.set(key, kept);
      this.counts.hits++;
      return { value: kept.value, cache: 'hit' };
    }
    if (kept) this.drop(key);
    const flying = this.inFlight.get(key);
    if (flying) {
      this.counts.shared++;
      return { value: await flying, cache: 'shared' };
    }
    this.counts.runs++;
    const p = run();
    this.inFlight.set(key, p);
    try {
      const value = await p;
      this.keep(key, value, ttlMs);
      return { value, cache: 'miss' };
    } finally {
      this.inFlight.delete(key);
    }
  }

  private keep(key: string, value: T, ttlMs: number): void {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
    if (bytes > this.limits.entryBytes) return;
    this.drop(key);
    this.entries.set(key, { value, bytes, expiresAt: this.now() + ttlMs });
    this.bytes += bytes;
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
      this.drop(k);
    }
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.bytes -= e.bytes;
    this.entries.delete(key);
  }

  /** Entries and bytes held now. */
  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
