import type { Config } from '../config/load.js';
import type { ControlReader } from '../control/types.js';
import type { Block } from './blocks/block-files.js';
import { DAY_US } from './partition.js';

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
