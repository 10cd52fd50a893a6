import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { SvcError } from '../../errors/svc-error.js';
import type { ErrorCode } from '../../errors/codes.js';
import type { LogEvent } from '../../events/event.js';
import type { EncodedBatch, WriteBatch } from '../../events/writer.js';

/**
 * A kind of decode job a protocol offers for large bodies: a pure function from plain, cloneable
 * job data (the request `body` and whatever else it needs) to its events plus plain extras for the
 * route. The same function runs on the event loop or in a decode worker, which finds it by `name`
 * (src/workers/decode-worker.ts).
 */
export interface DecodeKind<J extends { body: Uint8Array }, R extends { events: LogEvent[] }> {
  readonly name: string;
  /** Pure: the same answer on any thread. Throws SvcError for a body it refuses. */
  readonly decode: (job: J) => R;
}

/**
 * A decoded job as its route gets it: the extras, and the events as a WriteBatch (already in the
 * WAL's encoding when a worker decoded them, so the event loop does not encode them either).
 */
export type Decoded<R extends { events: LogEvent[] }> = Omit<R, 'events'> & { batch: WriteBatch };

/**
 * When the workers hold as many jobs as they may: `wait: true` (native ingest) waits for one to
 * finish; `wait: false` (the compatibility protocols) is refused at once with queue_full (429), as
 * the writer queue does. A decode worker now also writes the batch's parts, so this is where a
 * load beyond the machine's speed queues up.
 */
export interface RunOptions {
  wait: boolean;
}

/** Runs decode jobs somewhere other than the event loop. */
export interface DecodeRunner {
  /**
   * Called concurrently by the ingest routes; answers what `kind.decode(job)` would (the events
   * encoded), and rejects with the same SvcError it would throw. Takes ownership of `job.body`.
   */
  run<J extends { body: Uint8Array }, R extends { events: LogEvent[] }>(
    kind: DecodeKind<J, R>,
    job: J,
    opts?: RunOptions,
  ): Promise<Decoded<R>>;
  /** Stops the workers; jobs still running reject with shutting_down. */
  close(): Promise<void>;
}

/**
 * A decode worker's young generation. Decoding makes short-lived garbage at a high rate (a parsed
 * object, an event, a WAL line per event). When workers only decoded and encoded WAL lines, 128 MB
 * was chosen (bench/ingest-http.ts, 1M events: default 181-201k events/s, 128 MB 206-220k, at
 * +130-180 MiB of RSS). Now that a worker also writes the batch's parts (storage/parts/), one job at
 * a time, 32 MB measured the same ingest within the machine's noise and 240 MiB less peak RSS
 * (bench/vs-clickhouse.ts --svc-only, 1M events, built svc: 128 MB 187k ev/s, 882 MiB; 32 MB
 * 190-194k, 602-621 MiB; 16 MB 156-192k, 562-614 MiB).
 */
const WORKER_YOUNG_GENERATION_MB = 32;

/**
 * Jobs one worker may hold, running and queued, before callers wait or are refused (RunOptions):
 * enough to keep it busy while the event loop hands over the next body, few enough that a flood
 * of bodies waits (or hears 429) instead of piling up in the workers' memory.
 */
const MAX_JOBS_PER_WORKER = 4;

/** Bodies from this size on go to a decode worker when there is one: below it the hop costs more than it saves. */
export const OFFLOAD_MIN_BYTES = 64 * 1024;

/** Runs a job on the runner when there is one and the body is large enough, else right here. */
export async function decodeJob<J extends { body: Uint8Array }, R extends { events: LogEvent[] }>(
  runner: DecodeRunner | undefined,
  kind: DecodeKind<J, R>,
  job: J,
  opts: RunOptions = { wait: true },
): Promise<Decoded<R>> {
  if (runner && job.body.byteLength >= OFFLOAD_MIN_BYTES) return runner.run(kind, job, opts);
  const { events, ...extras } = kind.decode(job);
  return { ...extras, batch: events };
}

/** Pool → worker messages: run the decode kind `kind` on `job`. */
export interface WorkerRequest {
  id: number;
  kind: string;
  job: { body: Uint8Array };
}

/** Worker → pool messages: the job's extras and its events encoded, or the error it threw. */
export type WorkerReply =
  | { id: number; ok: true; result: { batch: EncodedBatch } & Record<string, unknown> }
  | { id: number; ok: false; code?: ErrorCode; message: string; details?: Record<string, unknown> };

/**
 * Where a worker's code is: its module's file (built .js, or .ts under tsx), or its bundled source
 * (the single executable, which has no files to start a worker from; src/packaged/carried.ts).
 */
export type WorkerEntry = URL | { source: string };

interface Slot {
  worker: Worker;
  jobs: Map<number, { resolve: (r: WorkerReply & { ok: true }) => void; reject: (e: unknown) => void }>;
}

/**
 * A fixed pool of decode workers, each running the module at `entry` (src/workers/decode-worker.ts,
 * given by the composition root). A job goes to the worker with the fewest jobs in hand. The body
 * is copied to the worker; the encoded WAL bytes come back transferred, not copied. A worker that
 * dies fails its jobs (an internal error: nothing was acknowledged) and is replaced.
 */
export class DecodePool implements DecodeRunner {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Callers waiting for a worker to finish a job (FIFO). */
  private readonly roomWaiters: (() => void)[] = [];

  constructor(
    size: number,
    private readonly entry: WorkerEntry,
    private readonly log?: Logger,
    /** Handed to every worker as workerData (the worker entry knows its shape: storage's part options). */
    private readonly workerData?: unknown,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  async run<J extends { body: Uint8Array }, R extends { events: LogEvent[] }>(
    kind: DecodeKind<J, R>,
    job: J,
    opts: RunOptions = { wait: true },
  ): Promise<Decoded<R>> {
    while (!this.closed && this.inHand() >= this.slots.length * MAX_JOBS_PER_WORKER) {
      if (!opts.wait)
        throw new SvcError('queue_full', 'cannot decode now: every decode worker is busy', { retryAfterSecs: 1 });
      await new Promise<void>((r) => this.roomWaiters.push(r));
    }
    if (this.closed) throw new SvcError('shutting_down', 'cannot decode: svc is shutting down');
    let slot = this.slots[0];
    for (const s of this.slots) if (s.jobs.size < slot.jobs.size) slot = s;
    const id = this.nextId++;
    // an exact copy of the body, transferred: posting a Buffer would clone its whole backing store
    const body = new Uint8Array(job.body);
    return await new Promise<Decoded<R>>((resolve, reject) => {
      slot.jobs.set(id, { resolve: (m) => resolve(m.result as unknown as Decoded<R>), reject });
      const request: WorkerRequest = { id, kind: kind.name, job: { ...job, body } };
      slot.worker.postMessage(request, [body.buffer]);
    });
  }

  /**
   * Asks each worker to stop (it closes what it opened, DuckDB among them, then exits) and
   * terminates one that has not exited within STOP_GRACE_MS.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.roomWaiters.splice(0)) w();
    await Promise.all(this.slots.map((s) => stopWorker(s.worker)));
    for (const s of this.slots) this.failAll(s, new SvcError('shutting_down', 'cannot decode: svc is shutting down'));
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.entry, this.workerData), jobs: new Map() };
    // idle workers must not keep the process alive (tests and tools that forget close())
    slot.worker.unref();
    slot.worker.on('message', (m: WorkerReply) => {
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      this.roomWaiters.shift()?.();
      if (m.ok) job.resolve(m);
      else
        job.reject(
          m.code
            ? new SvcError(m.code, m.message, { details: m.details })
            : new Error(`BUG: decode worker failed: ${m.message}`),
        );
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

  private inHand(): number {
    let n = 0;
    for (const s of this.slots) n += s.jobs.size;
    return n;
  }

  private failAll(slot: Slot, err: unknown): void {
    for (const j of slot.jobs.values()) j.reject(err);
    for (let i = 0; i < slot.jobs.size; i++) this.roomWaiters.shift()?.();
    slot.jobs.clear();
  }
}

/** How long a worker asked to stop may take to finish its job in hand before it is terminated. */
const STOP_GRACE_MS = 5_000;

async function stopWorker(w: Worker): Promise<void> {
  const exited = new Promise<void>((r) => w.once('exit', () => r()));
  w.postMessage({ stop: true });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), STOP_GRACE_MS)));
  if ((await Promise.race([exited, late])) === 'late') await w.terminate();
  clearTimeout(timer);
}

/**
 * Starts a worker on `entry`. Under tsx (tests, `npm run dev`) the entry is a .ts file and a worker
 * does not inherit tsx's loader, so the worker registers it before importing the entry.
 */
function startWorker(entry: WorkerEntry, workerData: unknown): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  if (!(entry instanceof URL)) return new Worker(entry.source, { eval: true, resourceLimits, workerData });
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { resourceLimits, workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`,
    { eval: true, resourceLimits, workerData },
  );
}
