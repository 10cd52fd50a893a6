import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncFile, syncDir } from '../storage/fsync.js';
import type { DeletePart, DeleteRequest, DeleteStatus } from './types.js';

/** One job as this node keeps it: the request, its own part, and whether a cancel was asked. */
export interface LocalJob {
  request: DeleteRequest;
  part: DeletePart;
  cancelled?: boolean;
}

/**
 * This node's delete jobs, one JSON file each under `<dataDir>/deletes/`, written whole and
 * atomically (temp file, fsync, rename): after a kill -9 a job's file is its last saved state,
 * which the service resumes from (service.ts). Synchronous on purpose: `save` runs inside the
 * rewrite's swap step, which must not yield to the event loop.
 */
export class LocalJobs {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'deletes');
    mkdirSync(this.dir, { recursive: true });
  }

  save(job: LocalJob): void {
    const file = join(this.dir, `${job.request.id}.json`);
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify(job));
    fsyncFile(tmp);
    renameSync(tmp, file);
    syncDir(this.dir);
  }

  get(id: string): LocalJob | undefined {
    const file = join(this.dir, `${id}.json`);
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalJob) : undefined;
  }

  /** Every job this node knows, oldest first. */
  all(): LocalJob[] {
    return readdirSync(this.dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(readFileSync(join(this.dir, n), 'utf8')) as LocalJob)
      .sort((a, b) => (a.request.createdAt < b.request.createdAt ? -1 : 1));
  }
}

/** A part's status once it can no longer change. */
export function ended(s: DeleteStatus): boolean {
  return s === 'done' || s === 'failed' || s === 'cancelled';
}

/** A job's status from its parts (a missing part is queued): failed wins, then running, then the end. */
export function overallStatus(parts: DeletePart[]): DeleteStatus {
  if (parts.some((p) => p.status === 'failed')) return 'failed';
  if (parts.every((p) => ended(p.status))) return parts.some((p) => p.status === 'cancelled') ? 'cancelled' : 'done';
  return parts.some((p) => p.status !== 'queued') ? 'running' : 'queued';
}
