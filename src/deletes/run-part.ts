import type { Logger } from 'pino';
import type { StorageEngine } from '../storage/engine.js';
import type { Lease } from '../storage/shared/lease.js';
import { deleteFilter } from './filter.js';
import type { LocalJob } from './records.js';

/** What running a part needs: the engine, persistence, and the checks between blocks. */
export interface PartDeps {
  engine: StorageEngine;
  now: () => number;
  log: Logger;
  /** Saves the job (synchronously: it is called inside the swap step). */
  save: (job: LocalJob) => void;
  /** Whether a cancel was asked (locally or, with a store, on any node). */
  cancelled: (job: LocalJob) => Promise<boolean>;
  /** The service is closing: stop between blocks, leaving the part running (it resumes at the next start). */
  closing: () => boolean;
  /** With a store: the lease that lets one node at a time rewrite (docs/delete.md). */
  lease?: Lease;
}

const LEASE_POLL_MS = 500;

/** Waits for the lease; false when the job was cancelled or the service closes meanwhile. */
async function takeLease(d: PartDeps, job: LocalJob): Promise<boolean> {
  if (!d.lease) return true;
  for (;;) {
    if (await d.lease.take()) return true;
    if (d.closing() || (await d.cancelled(job))) return false;
    await new Promise((r) => setTimeout(r, LEASE_POLL_MS));
  }
}

/**
 * Runs this node's part of a job to its end (or to the service's close): seals what is live, takes
 * the node's blocks in scope and rewrites them one at a time, saving the progress after each. Safe
 * to run again after a crash: a block already rewritten holds no match any more and is left as it is.
 */
export async function runPart(d: PartDeps, job: LocalJob): Promise<void> {
  const part = job.part;
  const filter = deleteFilter(job.request.spec, d.now());
  part.status = 'running';
  part.startedAt ??= new Date(d.now()).toISOString();
  d.save(job);
  if (!(await takeLease(d, job))) return void (d.closing() ? undefined : finish(d, job, 'cancelled'));
  let names: string[] = [];
  try {
    await d.engine.flush();
    names = await d.engine.deleting.begin(filter);
    part.blocksTotal = names.length;
    part.blocksDone = 0;
    d.save(job);
    for (const name of names) {
      if (d.closing()) return;
      if (await d.cancelled(job)) return finish(d, job, 'cancelled');
      await d.lease?.take(); // extends our own: a long delete keeps it
      const r = await d.engine.deleting.rewrite(name, filter, (n) => {
        part.inFlight = { block: name, deleted: n };
        d.save(job);
      });
      if (r === undefined) return; // the engine closed: the job resumes at the next start
      part.deleted += r.deleted;
      part.inFlight = undefined;
      part.blocksDone++;
      d.save(job);
    }
    finish(d, job, 'done');
  } catch (err) {
    d.log.error({ err, job: job.request.id }, 'delete job failed');
    part.error = (err as Error).message;
    finish(d, job, 'failed');
  } finally {
    d.engine.deleting.release(names);
    await d.lease?.release();
  }
}

function finish(d: PartDeps, job: LocalJob, status: 'done' | 'failed' | 'cancelled'): void {
  job.part.status = status;
  job.part.finishedAt = new Date(d.now()).toISOString();
  d.save(job);
}

/**
 * At start-up, before a job resumes: a swap its file says was about to commit did commit when the
 * old block is gone (recovery finished it like a merge), and its events count as deleted.
 */
export function settleInFlight(job: LocalJob, blockNames: Set<string>): void {
  const f = job.part.inFlight;
  if (!f) return;
  if (!blockNames.has(f.block)) job.part.deleted += f.deleted;
  job.part.inFlight = undefined;
}
