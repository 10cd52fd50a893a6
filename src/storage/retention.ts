import type { Config } from '../config/load.js';
import type { ControlReader } from '../control/types.js';
import type { Block } from './blocks/block-files.js';
import { DAY_US, isoOfUs } from './partition.js';

// Retention: which blocks have outlived their env's retention, and the sweep that deletes them
// (run by the engine's job queue on a timer and for POST /api/admin/gc).

/** What one sweep deleted; the answer of POST /api/admin/gc. */
export interface RetentionReport {
  deletedBlocks: number;
  deletedEvents: number;
  /** `node`: the node that wrote the block, with SVC_STORE (the sweep covers every node's blocks). */
  blocks: { env: string; index: string; day: string; block: string; events: number; maxTime: string; node?: string }[];
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
export function retentionDays(
  env: string,
  control: ControlReader,
  config: Pick<Config, 'retentionDefaultDays'>,
): number | undefined {
  return control.env(env)?.retentionDays ?? config.retentionDefaultDays ?? control.settings().retentionDefaultDays;
}

/** Whether a block of `env` whose newest event is at `maxUs` has outlived its env's retention at `nowMs`. */
export function expiryRule(
  nowMs: number,
  daysOf: (env: string) => number | undefined,
): (env: string, maxUs: number) => boolean {
  const cache = new Map<string, number | undefined>();
  return (env, maxUs) => {
    if (!cache.has(env)) cache.set(env, daysOf(env));
    const days = cache.get(env);
    return days !== undefined && maxUs < nowMs * 1000 - days * DAY_US;
  };
}

/** Blocks whose newest event is older than their env's retention allows (whole blocks only). */
export function expiredBlocks(
  blocks: Iterable<Block>,
  nowMs: number,
  daysOf: (env: string) => number | undefined,
): Block[] {
  const expired = expiryRule(nowMs, daysOf);
  return [...blocks].filter((b) => expired(b.meta.env, b.meta.maxUs));
}

/**
 * The sweep: deletes (through `drop`, which defers files a scan still reads) every block past its
 * env's retention, and reports what went.
 */
export function sweepExpired(
  blocks: Iterable<Block>,
  nowMs: number,
  daysOf: (env: string) => number | undefined,
  drop: (b: Block) => void,
): RetentionReport {
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
      maxTime: isoOfUs(b.meta.maxUs),
    })),
    tookMs: Date.now() - t0,
  };
}
