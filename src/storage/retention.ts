import type { Config } from '../config/load.js';
import type { ControlReader } from '../control/types.js';
import type { Block } from './blocks/block-files.js';
import { DAY_US } from './partition.js';

// Retention: which blocks have outlived their env's retention, and the sweep that deletes them
// (run by the engine's job queue on a timer and for POST /api/admin/gc).

/** What one sweep deleted; the answer of POST /api/admin/gc. */
export interface RetentionReport {
  deletedBlocks: number;
  deletedEvents: number;
  blocks: { env: string; index: string; day: string; block: string; events: number; maxTime: string }[];
  tookMs: number;
}

/** Called after every sweep (timer or forced), e.g. to record it in the self-log. Must not throw. */
export type SweepListener = (report: RetentionReport, forced: boolean) => void;

/** Forces a sweep now; exposed to the admin route. */
export interface RetentionSweeper {
  /** `forced`: asked for by an admin (POST /api/admin/gc) rather than the timer. */
  sweep(forced?: boolean): Promise<RetentionReport>;
  /** Registers the one listener told of every sweep. */
  onSweep(listener: SweepListener): void;
}

/**
 * Days an environment keeps data: its own override, else SVC_RETENTION_DEFAULT_DAYS, else the
 * admin General setting; undefined keeps data forever.
 */
export function retentionDays(env: string, control: ControlReader, config: Pick<Config, 'retentionDefaultDays'>): number | undefined {
  return control.env(env)?.retentionDays ?? config.retentionDefaultDays ?? control.settings().retentionDefaultDays;
}

/** Blocks whose newest event is older than their env's retention allows (whole blocks only). */
export function expiredBlocks(blocks: Iterable<Block>, nowMs: number, daysOf: (env: string) => number | undefined): Block[] {
  const out: Block[] = [];
  const cache = new Map<string, number | undefined>();
  for (const b of blocks) {
    if (!cache.has(b.meta.env)) cache.set(b.meta.env, daysOf(b.meta.env));
    const days = cache.get(b.meta.env);
    if (days !== undefined && b.meta.maxUs < nowMs * 1000 - days * DAY_US) out.push(b);
  }
  return out;
}

/**
 * The sweep: deletes (through `drop`, which defers files a scan still reads) every block past its
 * env's retention, and reports what went.
 */
export function sweepExpired(blocks: Iterable<Block>, nowMs: number, daysOf: (env: string) => number | undefined, drop: (b: Block) => void): RetentionReport {
  const t0 = Date.now();
  const doomed = expiredBlocks(blocks, nowMs, daysOf);
  for (const b of doomed) drop(b);
  return {
    deletedBlocks: doomed.length,
    deletedEvents: doomed.reduce((n, b) => n + b.meta.count, 0),
    blocks: doomed.map((b) => ({
      env: b.meta.env,
      index: b.meta.index,
      day: b.meta.day,
      block: b.meta.name,
      events: b.meta.count,
      maxTime: new Date(b.meta.maxUs / 1000).toISOString(),
    })),
    tookMs: Date.now() - t0,
  };
}
