import type { Logger } from 'pino';
import type { ControlDoc } from '../control/records.js';
import type { ControlStore } from '../control/store.js';

/**
 * Values noted per key in memory and written to the control plane in one change every interval and
 * at close: never a disk write per request. `apply` folds a batch into the document; a key noted
 * again while its batch was being written stays pending for the next flush.
 */
export class BatchedWrites<K, V> {
  readonly pending = new Map<K, V>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly control: ControlStore,
    private readonly log: Logger,
    /** What the writes record, for the error log ("session activity", "last-used times"). */
    private readonly what: string,
    private readonly apply: (doc: ControlDoc, batch: ReadonlyMap<K, V>) => void,
  ) {}

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = new Map(this.pending);
    await this.control.mutate((doc) => this.apply(doc, batch));
    for (const [k, v] of batch) if (this.pending.get(k) === v) this.pending.delete(k);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flushLogged(), intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushLogged();
  }

  private async flushLogged(): Promise<void> {
    await this.flush().catch((e: unknown) => this.log.error({ err: e }, `cannot record ${this.what}`));
  }
}

/** What keeps its writes in a BatchedWrites: flushed, started and closed as they are. */
export abstract class WritesBatched<K, V> {
  protected abstract readonly writes: BatchedWrites<K, V>;

  /** Writes the pending values now, in one control-plane change (the timer does it every interval). */
  flush(): Promise<void> {
    return this.writes.flush();
  }

  start(intervalMs: number): void {
    this.writes.start(intervalMs);
  }

  close(): Promise<void> {
    return this.writes.close();
  }
}
