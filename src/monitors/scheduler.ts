import type { MonitorRecord } from '../control/records.js';
import { durationMs } from './duration.js';
import { runMonitor, type MonitorDeps, type RunOutcome } from './run.js';

// When monitors run: every monitor at the multiples of its `every` (epoch-aligned: a 5m monitor runs
// at :00, :05, …), each scheduled time ("slot") taken durably before its run and never run again.
// docs/monitors.md, "Schedule".

/** Held by one node at a time when several share a store (storage/shared/lease.ts). */
export interface MonitorLease {
  take(): Promise<boolean>;
  release(): Promise<void>;
}

export interface SchedulerOptions {
  /** How often due monitors are looked for. */
  tickMs: number;
  /** With several nodes: only the holder runs monitors. Absent: this node runs them. */
  lease?: MonitorLease;
  /** How often the lease is taken or renewed (well inside its expiry); ticks in between trust the last answer. */
  leaseEveryMs?: number;
}

export class MonitorScheduler {
  private timer: NodeJS.Timeout | undefined;
  private readonly chains = new Map<string, Promise<unknown>>();
  private ticking: Promise<void> | undefined;
  private holding = false;
  private leaseAskedAt = -Infinity;
  private stopped = false;

  constructor(
    private readonly d: MonitorDeps,
    private readonly monitors: () => readonly MonitorRecord[],
    private readonly opts: SchedulerOptions,
  ) {}

  /** Records the runs a stop cut short, then looks for due monitors every `tickMs`. */
  async start(): Promise<void> {
    if (!this.opts.lease) await this.recordInterrupted();
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** One look for due monitors (tests call it with a manual clock). Never throws. */
  tick(): Promise<void> {
    this.ticking ??= this.tickOnce().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async tickOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.opts.lease && Date.now() - this.leaseAskedAt >= (this.opts.leaseEveryMs ?? 0)) {
        this.leaseAskedAt = Date.now();
        const held = await this.opts.lease.take();
        // another node ran them until now: its state is the one to go on from
        if (held && !this.holding) {
          await this.d.states.load();
          await this.recordInterrupted();
        }
        this.holding = held;
      }
      if (this.opts.lease && !this.holding) return;
      const now = this.d.clock.now();
      for (const m of this.monitors()) {
        if (!m.enabled || this.chains.has(m.id)) continue;
        const slot = dueSlot(m, this.d.states.get(m.id).lastSlot, now);
        if (slot !== undefined) void this.exclusive(m.id, () => this.runSlot(m, slot));
      }
    } catch (err) {
      this.d.log.error({ err }, 'monitor scheduling failed; trying again at the next tick');
    }
  }

  /** Runs `fn` after any run of monitor `id` under way (schedule and "run now" never overlap). */
  exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(id) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    this.chains.set(id, tail);
    // registered before the caller's own callbacks: once a run settles, the monitor is free at once
    const free = () => void (this.chains.get(id) === tail && this.chains.delete(id));
    run.then(free, free);
    return run;
  }

  private async runSlot(m: MonitorRecord, slot: number): Promise<RunOutcome | undefined> {
    const every = durationMs(m.every) ?? 60_000;
    const before = this.d.states.get(m.id);
    // taken before the run: a restart never runs this slot again
    await this.d.states.update(m.id, (s) => ({ ...s, lastSlot: slot, running: slot }));
    const missed = before.lastSlot === undefined ? 0 : Math.round((slot - before.lastSlot) / every) - 1;
    if (missed > 0) {
      this.d.selflog.service(
        'monitor_run',
        {
          monitor_id: m.id,
          monitor: m.name,
          outcome: 'missed',
          trigger: 'schedule',
          slot: new Date(slot).toISOString(),
          missed_runs: missed,
        },
        'warn',
      );
    }
    try {
      return await runMonitor(this.d, m, slot, 'schedule');
    } finally {
      await this.d.states
        .update(m.id, (s) => ({ ...s, running: undefined }))
        .catch((err: unknown) => this.d.log.error({ err, monitor: m.id }, 'cannot store a monitor run state'));
    }
  }

  /** A run still marked as under way was cut short by a stop: recorded, not repeated. */
  private async recordInterrupted(): Promise<void> {
    const byId = new Map(this.monitors().map((m) => [m.id, m]));
    for (const id of this.d.states.ids()) {
      const s = this.d.states.get(id);
      if (s.running === undefined) continue;
      const m = byId.get(id);
      this.d.selflog.service(
        'monitor_run',
        {
          monitor_id: id,
          monitor: m?.name ?? id,
          outcome: 'interrupted',
          trigger: 'schedule',
          slot: new Date(s.running).toISOString(),
        },
        'warn',
      );
      await this.d.states.update(id, (x) => ({ ...x, running: undefined }));
    }
  }

  /** Stops looking for due monitors and waits for the runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all([...this.chains.values()]);
    if (this.holding) await this.opts.lease?.release();
  }
}

/**
 * The slot monitor `m` should run now, if any: the latest multiple of `every` not after `now`,
 * when it is newer than the last one taken (a monitor never run starts at the first slot after
 * it was made or last changed).
 */
export function dueSlot(m: MonitorRecord, lastSlot: number | undefined, now: number): number | undefined {
  const every = durationMs(m.every);
  if (!every) return undefined;
  const slot = Math.floor(now / every) * every;
  const after = lastSlot ?? Date.parse(m.updatedAt);
  return slot > after ? slot : undefined;
}
