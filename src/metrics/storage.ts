import { Counter, Histogram, type Registry } from 'prom-client';

export type JobOutcome = 'ok' | 'failed';

/** What the storage engine reports of its background jobs; called once per seal or merge, from its one JS thread. */
export interface StorageObserver {
  /** One WAL segment's seal into blocks finished (a failed one is tried again and counted again). */
  seal(seconds: number, outcome: JobOutcome): void;
  /** One merge of small blocks into one finished. */
  merge(seconds: number, outcome: JobOutcome): void;
}

/** Seals take from milliseconds (a small segment) to minutes (a large one on a slow disk). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Seal and merge counts and durations; the only label is the closed `outcome`. */
export class StorageMetrics implements StorageObserver {
  private readonly seals: Counter<'outcome'>;
  private readonly sealSeconds: Histogram;
  private readonly merges: Counter<'outcome'>;
  private readonly mergeSeconds: Histogram;

  constructor(registers: Registry[]) {
    this.seals = new Counter({
      name: 'svc_storage_seals_total',
      help: 'WAL segment seals into blocks, by outcome (ok, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.sealSeconds = new Histogram({
      name: 'svc_storage_seal_duration_seconds',
      help: 'Time one WAL segment seal took, whatever its outcome.',
      buckets: JOB_BUCKETS,
      registers,
    });
    this.merges = new Counter({
      name: 'svc_storage_merges_total',
      help: 'Merges of small blocks of one partition into one block, by outcome (ok, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.mergeSeconds = new Histogram({
      name: 'svc_storage_merge_duration_seconds',
      help: 'Time one merge took, whatever its outcome.',
      buckets: JOB_BUCKETS,
      registers,
    });
  }

  seal(seconds: number, outcome: JobOutcome): void {
    this.seals.inc({ outcome });
    this.sealSeconds.observe(seconds);
  }

  merge(seconds: number, outcome: JobOutcome): void {
    this.merges.inc({ outcome });
    this.mergeSeconds.observe(seconds);
  }
}
