import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { SvcError } from '../../errors/svc-error.js';
import type { ErrorCode } from '../../errors/codes.js';
import { DECODE_JOBS, OFFLOAD_MIN_BYTES, type DecodeKind, type JobOf, type ResultOf } from './decode-jobs.js';

/** Runs decode jobs (decode-jobs.ts) somewhere other than the event loop. */
export interface DecodeRunner {
  /**
   * Called concurrently by the ingest routes; answers exactly what DECODE_JOBS[kind](job) would,
   * and rejects with the same SvcError it would throw. Takes ownership of `job.body`.
   */
  run<K extends DecodeKind>(kind: K, job: JobOf<K>): Promise<ResultOf<K>>;
  /** Stops the workers; jobs still running reject with shutting_down. */
  close(): Promise<void>;
}

/** Runs a job on the runner when there is one and the body is large enough, else right here. */
export async function decodeJob<K extends DecodeKind>(runner: DecodeRunner | undefined, kind: K, job: JobOf<K>): Promise<ResultOf<K>> {
  if (runner && job.body.byteLength >= OFFLOAD_MIN_BYTES) return runner.run(kind, job);
  return (DECODE_JOBS[kind] as (j: JobOf<K>) => ResultOf<K>)(job);
}

/** Worker → pool messages. */
export type WorkerReply =
  | { id: number; ok: true; result: ResultOf<DecodeKind> }
  | { id: number; ok: false; code?: ErrorCode; message: string; details?: Record<string, unknown> };

interface Slot {
  worker: Worker;
  jobs: Map<number, { resolve: (r: ResultOf<DecodeKind>) => void; reject: (e: unknown) => void }>;
}

/**
 * A fixed pool of decode workers (decode-worker.ts). A job goes to the worker with the fewest jobs
 * in hand. The body is copied to the worker; the encoded WAL bytes come back transferred, not
 * copied. A worker that dies fails its jobs (500, nothing was acknowledged) and is replaced.
 */
export class DecodePool implements DecodeRunner {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    size: number,
    private readonly log?: Logger,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  run<K extends DecodeKind>(kind: K, job: JobOf<K>): Promise<ResultOf<K>> {
    if (this.closed) return Promise.reject(new SvcError('shutting_down', 'cannot decode: svc is shutting down'));
    let slot = this.slots[0];
    for (const s of this.slots) if (s.jobs.size < slot.jobs.size) slot = s;
    const id = this.nextId++;
    // an exact copy of the body, transferred: posting a Buffer would clone its whole backing store
    const body = new Uint8Array(job.body);
    return new Promise<ResultOf<K>>((resolve, reject) => {
      slot.jobs.set(id, { resolve: resolve as (r: ResultOf<DecodeKind>) => void, reject });
      slot.worker.postMessage({ id, kind, job: { ...job, body } }, [body.buffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    for (const s of this.slots) this.failAll(s, new SvcError('shutting_down', 'cannot decode: svc is shutting down'));
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(), jobs: new Map() };
    // idle workers must not keep the process alive (tests and tools that forget close())
    slot.worker.unref();
    slot.worker.on('message', (m: WorkerReply) => {
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      if (m.ok) job.resolve(m.result);
      else job.reject(m.code ? new SvcError(m.code, m.message, { details: m.details }) : new Error(`BUG: decode worker failed: ${m.message}`));
    });
    slot.worker.on('error', (err) => {
      this.log?.error({ err }, 'decode worker died; starting a new one');
      this.failAll(slot, err);
    });
    slot.worker.on('exit', () => {
      if (this.closed) return;
      this.failAll(slot, new Error('BUG: decode worker exited'));
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
    });
    return slot;
  }

  private failAll(slot: Slot, err: unknown): void {
    for (const j of slot.jobs.values()) j.reject(err);
    slot.jobs.clear();
  }
}

/**
 * Starts decode-worker.js beside this module. Under tsx (tests, `npm run dev`) this module is a .ts
 * file and a worker does not inherit tsx's loader, so the worker registers it before importing.
 */
function startWorker(): Worker {
  const ts = import.meta.url.endsWith('.ts');
  const url = new URL(ts ? './decode-worker.ts' : './decode-worker.js', import.meta.url);
  if (!ts) return new Worker(url);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true });
}
