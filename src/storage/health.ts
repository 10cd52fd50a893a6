import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { ProblemReporter, StorageProblemKind } from './problems.js';

/** One reason `GET /api/health` says `degraded` (docs/admin-api.md, "Health"). */
export interface HealthProblem {
  kind: StorageProblemKind | 'writer_stalled' | 'blocks_set_aside' | 'syslog_dropped';
  /** What is wrong, paths relative to the data dir. */
  message: string;
  /** ISO time the problem began. */
  since: string;
  /** A file concerned, relative to the data dir. */
  path?: string;
  /** Reports of it since it began (problems that recur while they last). */
  count?: number;
}

/**
 * Problems that have no natural end and recur while they last: shown until this long after the
 * last report. Only another node's block (a store key, not a file of this data dir) expires: a
 * local file that cannot be read is left out until the next start, and shown as long.
 */
const EXPIRES_AFTER_MS: Partial<Record<StorageProblemKind, number>> = {
  background_job_failed: 10 * 60_000,
  block_unreadable: 10 * 60_000,
};

/** Shown from the disk instead (blocks_set_aside): the files stay set aside across restarts until an operator acts. */
const FROM_DISK = new Set<StorageProblemKind>(['block_quarantined']);

/** The quarantine directory is walked at most this often (health may be polled every second). */
const SCAN_EVERY_MS = 5_000;

export interface HealthSources {
  dataDir: string;
  problems: ProblemReporter;
  /** When the write waiting longest for its acknowledgement arrived (WriterQueue). */
  oldestWaitingSince(): number | undefined;
  stallMs: number;
}

/**
 * The storage side of `GET /api/health`: the problems going on now (reported and not resolved,
 * problems.ts), a writer whose oldest write has waited longer than SVC_HEALTH_WRITER_STALL_SECS,
 * and blocks set aside in `quarantine/`. Nothing here names a path outside the data dir.
 */
export class StorageHealth {
  private setAside: { at: number; problem: HealthProblem | undefined } = { at: -Infinity, problem: undefined };

  constructor(private readonly o: HealthSources) {}

  problems(now = Date.now()): HealthProblem[] {
    const out: HealthProblem[] = [];
    for (const p of this.o.problems.active()) {
      if (FROM_DISK.has(p.kind)) continue;
      const ttl = p.path?.startsWith(this.o.dataDir) ? undefined : EXPIRES_AFTER_MS[p.kind];
      if (ttl !== undefined && now - p.lastAt > ttl) continue;
      out.push({
        kind: p.kind,
        message: this.relative(p.message),
        since: iso(p.since),
        ...(p.path ? { path: this.relative(p.path) } : {}),
        count: p.count,
      });
    }
    const waiting = this.o.oldestWaitingSince();
    if (waiting !== undefined && now - waiting > this.o.stallMs) {
      const secs = Math.round((now - waiting) / 1000);
      out.push({
        kind: 'writer_stalled',
        message: `a write has waited ${secs} s for its acknowledgement (limit ${Math.round(this.o.stallMs / 1000)} s)`,
        since: iso(waiting),
      });
    }
    const aside = this.blocksSetAside(now);
    if (aside) out.push(aside);
    return out;
  }

  /** Blocks in `quarantine/` (set aside at start-up because they could not be trusted), cached for SCAN_EVERY_MS. */
  private blocksSetAside(now: number): HealthProblem | undefined {
    if (now - this.setAside.at < SCAN_EVERY_MS) return this.setAside.problem;
    const dir = join(this.o.dataDir, 'quarantine');
    const files = parquetFiles(dir);
    let problem: HealthProblem | undefined;
    if (files.length > 0) {
      const since = Math.min(...files.map((f) => f.ctimeMs));
      problem = {
        kind: 'blocks_set_aside',
        message: `${files.length} block${files.length === 1 ? '' : 's'} set aside in quarantine/, their events are not searchable; see docs/storage.md ("Health") to restore or delete them`,
        since: iso(since),
        path: 'quarantine',
        count: files.length,
      };
    }
    this.setAside = { at: now, problem };
    return problem;
  }

  /** Full paths of the data dir made relative to it, so health never tells where the disk is. */
  private relative(text: string): string {
    const root = this.o.dataDir.replace(/[\\/]+$/, '');
    return text
      .split(root + sep)
      .join('')
      .split(root)
      .join('.');
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parquet files under `dir` (any depth, at most 10,000 looked at); none when it does not exist. */
function parquetFiles(dir: string): { ctimeMs: number }[] {
  const out: { ctimeMs: number }[] = [];
  const walk = (d: string, depth: number) => {
    let names;
    try {
      names = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names) {
      if (out.length >= 10_000) return;
      const p = join(d, e.name);
      if (e.isDirectory() && depth < 6) walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.parquet'))
        out.push({ ctimeMs: statSync(p, { throwIfNoEntry: false })?.ctimeMs ?? Date.now() });
    }
  };
  walk(dir, 0);
  return out;
}
