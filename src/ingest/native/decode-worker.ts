import { parentPort } from 'node:worker_threads';
import { runDecodeJob, type DecodeJob } from './decode-job.js';
import type { WorkerReply } from './decode-pool.js';

/** Entry of a decode worker (decode-pool.ts): decodes and encodes one body per message. */
const port = parentPort;
if (!port) throw new Error('BUG: decode-worker.ts must run as a worker thread');

port.on('message', ({ id, job }: { id: number; job: DecodeJob }) => {
  let reply: WorkerReply;
  try {
    reply = { id, ok: true, result: runDecodeJob(job) };
  } catch (e) {
    reply = { id, ok: false, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  port.postMessage(reply, reply.ok ? [reply.result.batch.wal.buffer as ArrayBuffer] : []);
});
