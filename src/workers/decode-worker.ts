import { parentPort, workerData } from 'node:worker_threads';
import { SvcError } from '../errors/svc-error.js';
import type { DecodeKind, WorkerReply, WorkerRequest } from '../ingest/common/decode-pool.js';
import { ES_BULK_DECODE } from '../ingest/elasticsearch/decode-bulk.js';
import { NATIVE_DECODE } from '../ingest/native/decode-job.js';
import { OTLP_DECODE } from '../ingest/otlp/decode-job.js';
import { encodeBatch } from '../storage/wal/batch-encode.js';
import { PartWriter, type PartWorkerOptions } from '../storage/parts/part-db.js';
import type { LogEvent } from '../events/event.js';

/**
 * Entry of a decode worker (ingest/common/decode-pool.ts runs it by path, see ./paths.ts): runs one
 * decode job per message and encodes its events for the WAL here, off the event loop. The one
 * module that joins an ingest decoder to storage's encoding, so neither ingest/ nor events/ needs
 * storage/.
 */
const port = parentPort;
if (!port) throw new Error('BUG: decode-worker.ts must run as a worker thread');

// a job is checked by the kind it names: the table only knows that each answers events
const KINDS = new Map<string, DecodeKind<never, { events: LogEvent[] }>>(
  [NATIVE_DECODE, ES_BULK_DECODE, OTLP_DECODE].map((k) => [k.name, k]),
);

// with the engine's parts folder, large batches are written as parts here (storage/parts/)
const partOptions = (workerData as { parts?: PartWorkerOptions } | null)?.parts;
const parts = partOptions ? new PartWriter(partOptions) : undefined;

/** Runs one job; the WAL bytes go back transferred, not copied, to the event loop's thread. */
async function run({ id, kind, job }: WorkerRequest): Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> {
  const k = KINDS.get(kind);
  if (!k) return { reply: { id, ok: false, message: `unknown decode kind "${kind}"` }, transfer: [] };
  const { events, ...extras } = k.decode(job as never);
  const asParts = await parts?.write(events);
  if (asParts) return { reply: { id, ok: true, result: { ...extras, batch: asParts } }, transfer: [] };
  const batch = encodeBatch(events);
  if (parts?.failed) batch.partsFailed = parts.failed;
  return { reply: { id, ok: true, result: { ...extras, batch } }, transfer: [batch.wal.buffer as ArrayBuffer] };
}

let queue: Promise<unknown> = Promise.resolve();

port.on('message', (m: WorkerRequest | { stop: true }) => {
  if ('stop' in m) {
    // the pool's close: DuckDB closed before the thread ends (storage/parts/part-db.ts says why)
    void queue.then(() => parts?.close()).finally(() => process.exit(0));
    return;
  }
  // one job at a time, decode included: jobs decoded while a part is written would hold their
  // events in memory meanwhile (up to four bodies wait here, ingest/common/decode-pool.ts)
  const job = queue.then(() => run(m));
  queue = job.catch(() => undefined);
  job.then(
    ({ reply, transfer }) => port.postMessage(reply, transfer),
    (e: unknown) => {
      const reply: WorkerReply =
        e instanceof SvcError
          ? { id: m.id, ok: false, code: e.code, message: e.message, details: e.details }
          : { id: m.id, ok: false, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
      port.postMessage(reply);
    },
  );
});
