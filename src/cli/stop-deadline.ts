import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/** After the deadline the stop is given this much longer before the watchdog thread kills the process. */
const WATCHDOG_GRACE_MS = 5_000;

// The watchdog runs on its own thread: a main thread stuck in a loop never runs its timers, so
// only another thread can end it. It writes straight to fd 2 (a worker's process.stderr goes
// through the main thread) and sends SIGKILL to the whole process.
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
require('node:fs').writeSync(2, JSON.stringify({ level: 60, time: Date.now(), pid: workerData.pid, msg: workerData.msg }) + '\\n');
process.kill(workerData.pid, 'SIGKILL');
`;

/**
 * Bounds a stop (SIGTERM, SIGINT) to `secs` (SVC_SHUTDOWN_TIMEOUT_SECS): then what still runs is
 * logged and the process exits 1. Should the main thread be too busy to run that timer, a watchdog
 * thread kills the process WATCHDOG_GRACE_MS later. Acknowledged writes are in the WAL
 * (fdatasynced before the ack), so cutting a stop short loses nothing acknowledged.
 */
export function armStopDeadline(secs: number, log: Logger, stillRunning: () => string): void {
  const ms = secs * 1000;
  const timer = setTimeout(() => {
    log.error(
      { deadlineSecs: secs, stillRunning: stillRunning() },
      `svc did not stop within ${secs} s (SVC_SHUTDOWN_TIMEOUT_SECS): exiting`,
    );
    process.exit(1);
  }, ms);
  timer.unref();
  const msg = `svc did not stop within ${secs + WATCHDOG_GRACE_MS / 1000} s and its main thread does not answer: killed by the shutdown watchdog`;
  const w = new Worker(WATCHDOG, { eval: true, workerData: { ms: ms + WATCHDOG_GRACE_MS, pid: process.pid, msg } });
  w.unref();
}
