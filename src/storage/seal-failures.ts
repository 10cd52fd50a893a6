import type { Logger } from 'pino';
import type { ProblemReporter } from './problems.js';

// What follows a failed seal (docs/storage.md, "When a seal fails"). A segment whose seal fails
// stops holding commits back at once (the seal backlog's backpressure counts only segments that
// can be sealed), so one bad segment never stalls ingest. Its events stay live and searchable.
//
//   first failure, not the environment's fault → the segment is rewritten through the store's
//     guard (wal/segment-repair.ts) and sealed again at once;
//   failure after that rewrite → set aside: it stays in the WAL, live and searchable, reported
//     once as `segment_set_aside`, and its seal is tried again every 10 minutes and at each start;
//   the environment's fault (disk full, read-only, I/O error) → tried again every 10 s, no rewrite.

/** The engine's next step for a segment whose seal failed. */
export type SealNext = { repair: true } | { repair: false; retryMs: number };

const RETRY_MS = 10_000;
const SET_ASIDE_RETRY_MS = 10 * 60_000;
/** Errors of the disk or the system, not of the segment's content: a rewrite cannot help. */
const ENVIRONMENT =
  /\b(ENOSPC|EDQUOT|EROFS|EIO|EMFILE|ENFILE|ENOMEM)\b|no space left|read-only file system|input\/output error|out of memory/i;

interface Failing {
  failures: number;
  repaired: boolean;
  setAside: boolean;
}

export class SealFailures {
  private readonly bySeq = new Map<number, Failing>();

  constructor(
    private readonly problems: ProblemReporter,
    private readonly log: Logger,
  ) {}

  /** True while segment `seq` is failing to seal: it does not count in the seal backlog. */
  failing(seq: number): boolean {
    return this.bySeq.has(seq);
  }

  /** Segments set aside (stats and tests). */
  setAside(): number[] {
    return [...this.bySeq].filter(([, f]) => f.setAside).map(([seq]) => seq);
  }

  /** Records a failed seal of segment `seq` (file `path`), tells it once, and answers what comes next. */
  failed(seq: number, path: string, err: unknown): SealNext {
    const f = this.bySeq.get(seq) ?? { failures: 0, repaired: false, setAside: false };
    this.bySeq.set(seq, f);
    f.failures++;
    const reason = String((err as Error)?.message ?? err).split('\n')[0];
    this.log.error({ err, seq, failures: f.failures }, 'cannot seal WAL segment');
    if (f.failures === 1) this.problems.report('seal_failed', `cannot seal WAL segment ${seq}: ${reason}`, path);
    if (ENVIRONMENT.test(`${(err as NodeJS.ErrnoException)?.code ?? ''} ${reason}`))
      return { repair: false, retryMs: RETRY_MS };
    if (!f.repaired) return { repair: true };
    if (!f.setAside) {
      f.setAside = true;
      this.problems.report(
        'segment_set_aside',
        `WAL segment ${seq} cannot be sealed even rewritten (${reason}): it stays in the WAL, its events searchable, and no longer holds ingest back; its seal is tried again every 10 minutes and at each start`,
        path,
      );
    }
    return { repair: false, retryMs: SET_ASIDE_RETRY_MS };
  }

  /** Segment `seq` was rewritten (or the rewrite failed): the next failure sets it aside. */
  repaired(seq: number): void {
    const f = this.bySeq.get(seq);
    if (f) f.repaired = true;
  }

  /** Segment `seq` sealed (or is gone): whatever was told of it is over. */
  sealed(seq: number, path: string): void {
    const f = this.bySeq.get(seq);
    if (!f) return;
    this.bySeq.delete(seq);
    this.problems.resolve('seal_failed', `WAL segment ${seq} is sealed`, path);
    if (f.setAside) this.problems.resolve('segment_set_aside', `WAL segment ${seq} is sealed`, path);
  }
}
