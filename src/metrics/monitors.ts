import { Counter, type Registry } from 'prom-client';

/** What a monitor run reports once it ended (monitors/run.ts). */
export interface MonitorObserver {
  run(trigger: 'schedule' | 'manual', outcome: 'ok' | 'error'): void;
}

/** Monitor runs. Labels are closed lists; never a monitor's name (users choose those). */
export class MonitorMetrics implements MonitorObserver {
  private readonly runs: Counter<'trigger' | 'outcome'>;

  constructor(registers: Registry[]) {
    this.runs = new Counter({
      name: 'svc_monitor_runs_total',
      help: 'Monitor runs, by trigger (schedule, manual) and outcome (ok; error: the search or the condition failed).',
      labelNames: ['trigger', 'outcome'],
      registers,
    });
  }

  run(trigger: 'schedule' | 'manual', outcome: 'ok' | 'error'): void {
    this.runs.inc({ trigger, outcome });
  }
}
