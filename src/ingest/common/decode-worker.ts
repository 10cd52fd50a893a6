import { parentPort } from 'node:worker_threads';
import { SvcError } from '../../errors/svc-error.js';
import { DECODE_JOBS, type DecodeKind } from './decode-jobs.js';
import type { WorkerReply } from './decode-pool.js';

/** Entry of a decode worker (decode-pool.ts): runs one decode job per message. */
const port = parentPort;
if (!port) throw new Error('BUG: decode-worker.ts must run as a worker thread');

port.on('message', ({ id, kind, job }: { id: number; kind: DecodeKind; job: never }) => {
  let reply: WorkerReply;
  try {
    reply = { id, ok: true, result: DECODE_JOBS[kind](job) };
  } catch (e) {
    reply =
      e instanceof SvcError
        ? { id, ok: false, code: e.code, message: e.message, details: e.details }
        : { id, ok: false, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  port.postMessage(reply, reply.ok ? [reply.result.batch.wal.buffer as ArrayBuffer] : []);
});
