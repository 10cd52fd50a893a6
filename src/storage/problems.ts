import { ActiveProblems, type ActiveProblem } from './active-problems.js';

/** What can go wrong below the API that an operator must hear about (svc's self-log, `_svclogs`). */
export type StorageProblemKind =
  | 'wal_write_failed'
  | 'disk_full'
  | 'disk_read_only'
  | 'seal_failed'
  | 'background_job_failed'
  | 'block_quarantined'
  | 'store_unavailable'
  | 'block_unreadable'
  /** A WAL segment that cannot be sealed even rewritten: kept live and searchable (seal-failures.ts). */
  | 'segment_set_aside'
  /** A live WAL segment a search could not read: searches skip it until it is rewritten (read/unreadable-files.ts). */
  | 'segment_unreadable'
  /**
   * A decode worker could not write a batch as parts (parts/part-db.ts): the batch went through the
   * WAL instead, so nothing is lost, but ingest costs more until parts are written again.
   */
  | 'parts_failed';

export interface StorageProblem {
  kind: StorageProblemKind;
  message: string;
  /** The file concerned (a quarantined block). */
  path?: string;
  /** Reports of the same problem held back since the last one told (see ProblemReporter). */
  repeated: number;
  /** The problem is over (told once, by resolve()): e.g. the shared store answers again. */
  resolved?: boolean;
}

export type ProblemListener = (p: StorageProblem) => void;

/**
 * Tells one listener of storage problems. Problems found before it listens (start-up quarantine)
 * are kept for it. The same problem is told at most once per `everyMs` with the number held back:
 * on a full disk every write fails, the self-log's own writes too, and each would report again.
 * It also keeps the problems going on now (reported, not resolved yet) for `GET /api/health`.
 */
export class ProblemReporter {
  private listener: ProblemListener | undefined;
  private readonly early: StorageProblem[] = [];
  private readonly last = new Map<string, { at: number; held: number }>();
  private readonly current = new ActiveProblems<StorageProblemKind>();

  constructor(
    private readonly now: () => number,
    private readonly everyMs = 60_000,
  ) {}

  report(kind: StorageProblemKind, message: string, path?: string): void {
    const key = ActiveProblems.key(kind, path);
    const t = this.now();
    this.current.add(kind, message, path, t);
    const seen = this.last.get(key);
    if (seen && t - seen.at < this.everyMs) {
      seen.held++;
      return;
    }
    this.last.set(key, { at: t, held: 0 });
    const p: StorageProblem = { kind, message, path, repeated: seen?.held ?? 0 };
    if (this.listener) this.listener(p);
    else if (this.early.length < 100) this.early.push(p);
  }

  /**
   * Tells that a problem is over (never held back) and forgets it, so the next time it happens it
   * is told at once. A problem that is not going on is not told: callers resolve on every success
   * (each WAL append, each seal) without flooding the self-log.
   */
  resolve(kind: StorageProblemKind, message: string, path?: string): void {
    if (!this.current.remove(kind, path)) return;
    this.last.delete(ActiveProblems.key(kind, path));
    const p: StorageProblem = { kind, message, path, repeated: 0, resolved: true };
    if (this.listener) this.listener(p);
    else if (this.early.length < 100) this.early.push(p);
  }

  /** The problems going on now, oldest first. */
  active(): ActiveProblem<StorageProblemKind>[] {
    return this.current.list();
  }

  /** Whether a problem of this kind is going on (any path). */
  isActive(kind: StorageProblemKind): boolean {
    return this.current.has(kind);
  }

  listen(l: ProblemListener): void {
    this.listener = l;
    for (const p of this.early.splice(0)) l(p);
  }
}
