import { statfsSync } from 'node:fs';
import type { ProblemReporter } from './problems.js';

// How a failed write to the data dir is named: the errno of the cause says whether the disk is
// full, read-only or failing, and each is its own problem in health (docs/storage.md, "Health").

/** errno codes of a disk that cannot take writes now but may later (every one answers 503 storage_unavailable). */
const FAULTS: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large for the disk or the process limit',
  EROFS: 'the disk is read-only',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** The errno code of an error or of the error it wraps (SvcError's cause). */
export function errnoOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** `ENOSPC: no space left on the disk`, or the code alone when it is not one of the disk faults. */
export function describeErrno(code: string): string {
  const what = FAULTS[code];
  return what ? `${code}: ${what}` : code;
}

export type WalFaultKind = 'disk_full' | 'disk_read_only' | 'wal_write_failed';

/** The health problem a failed WAL append is: a full disk, a read-only one, or another failure. */
export function walFaultKind(err: unknown): WalFaultKind {
  const code = errnoOf(err);
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') return 'disk_full';
  if (code === 'EROFS') return 'disk_read_only';
  return 'wal_write_failed';
}

/** Free space below which a full disk is still full, whatever fitted: the slack of a file's last page takes a tiny write. */
const FULL_UNTIL_FREE_BYTES = 1 << 20;

/**
 * The WAL's write problems: a failed append reports the problem its cause names, the next append
 * that succeeds resolves whichever was going on. Called by the one commit at a time.
 * A full disk is over only when space returned (`freeBytes`, the file system's free bytes): svc's
 * own small self-log batch can fit in the open segment's last page on a disk that refuses
 * every real request, and must not tell the operator the disk has room again.
 */
export class WalFaults {
  private failing: WalFaultKind | undefined;

  constructor(
    private readonly problems: ProblemReporter,
    private readonly freeBytes: () => number | undefined = () => undefined,
  ) {}

  failed(err: unknown): void {
    const kind = walFaultKind(err);
    this.problems.report(kind, (err as Error).message);
    this.failing = kind;
  }

  succeeded(): void {
    if (!this.failing) return;
    if (this.failing === 'disk_full') {
      const free = this.freeBytes();
      if (free !== undefined && free < FULL_UNTIL_FREE_BYTES) return;
    }
    this.failing = undefined;
    this.problems.resolve('disk_full', 'the write-ahead log takes writes again: space returned');
    this.problems.resolve('disk_read_only', 'the write-ahead log takes writes again: the disk is writable');
    this.problems.resolve('wal_write_failed', 'the write-ahead log takes writes again');
  }
}

/** Free bytes for an unprivileged writer on the file system holding `dir`; undefined when it cannot be asked. */
export function freeBytesAt(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
