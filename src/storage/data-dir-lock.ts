import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describeErrno, errnoOf } from './disk-faults.js';

// One svc per data dir (docs/storage.md, "The data-dir lock"). The lock is `<data>/svc.lock`,
// made with link(2) so it appears whole or not at all, naming its holder. The OS does not take it
// away when the holder dies (kill -9): the next start finds the holder's pid gone (or reused by
// another process, told apart by its start time in /proc) and takes the lock over. flock(2) would
// be released by the kernel, but Node has no flock without a native addon, and a pid check is
// exact on one host; a data dir is never shared between hosts (several nodes share a store).

export const LOCK_FILE = 'svc.lock';

/** Who holds the data dir, as the lock file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the holder started. */
  startedAt: string;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat field 22), where there is /proc. */
  procStart?: string;
}

/** svc cannot start: another process holds the data dir, or the lock cannot be made. */
export class DataDirLockError extends Error {
  constructor(
    message: string,
    readonly holder?: LockHolder,
  ) {
    super(message);
    this.name = 'DataDirLockError';
  }
}

export class DataDirLock {
  private constructor(
    private readonly path: string,
    private readonly mine: string,
  ) {}

  /**
   * Takes the data dir's lock before anything else touches the data dir, or throws
   * DataDirLockError naming the live holder (or why the lock cannot be made: a read-only disk).
   * A lock left by a dead process is taken over; `onStale` is told of it.
   */
  static acquire(dataDir: string, onStale: (holder: LockHolder | undefined) => void = () => {}): DataDirLock {
    const path = join(dataDir, LOCK_FILE);
    const me: LockHolder = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      procStart: procStart(process.pid),
    };
    const mine = JSON.stringify(me);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, mine + '\n');
    } catch (err) {
      const code = errnoOf(err);
      throw new DataDirLockError(
        `cannot lock the data dir ${dataDir} (${code ? describeErrno(code) : (err as Error).message}): svc writes its write-ahead log there and needs it writable`,
      );
    }
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          linkSync(tmp, path);
          return new DataDirLock(path, mine);
        } catch (err) {
          if (errnoOf(err) !== 'EEXIST')
            throw new DataDirLockError(`cannot lock the data dir ${dataDir}: ${(err as Error).message}`);
        }
        const text = readText(path);
        if (text === undefined) continue; // removed meanwhile: try again
        const holder = parseHolder(text);
        if (holder && alive(holder)) {
          throw new DataDirLockError(
            `the data dir ${dataDir} is in use by svc pid ${holder.pid} on host ${holder.host} (started ${holder.startedAt}); stop that process first` +
              (holder.host === me.host ? '' : `, or remove ${path} if it is gone`),
            holder,
          );
        }
        // the holder is gone: take the lock over, unless another starting process did meanwhile
        if (readText(path) !== text) continue;
        onStale(holder);
        try {
          unlinkSync(path);
        } catch {
          // another process took it over first: the next attempt reads its lock
        }
      }
      throw new DataDirLockError(`cannot lock the data dir ${dataDir}: other processes keep taking ${LOCK_FILE}`);
    } finally {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
    }
  }

  /** Gives the lock up (at the end of close()); leaves a lock that is not ours alone. */
  release(): void {
    try {
      if (readText(this.path)?.trim() === this.mine) unlinkSync(this.path);
    } catch {
      // a lock left behind is taken over by the next start: its pid is gone
    }
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.host !== 'string' || typeof h.startedAt !== 'string') return undefined;
    return {
      pid: h.pid,
      host: h.host,
      startedAt: h.startedAt,
      procStart: typeof h.procStart === 'string' ? h.procStart : undefined,
    };
  } catch {
    return undefined; // not a lock svc wrote
  }
}

/**
 * Whether the holder still runs. On another host nobody can tell: it counts as alive. Our own pid
 * means a restart that got the same pid (a container's pid 1): the lock is a dead run's.
 */
function alive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  if (h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    if (errnoOf(err) !== 'EPERM') return false; // ESRCH: no such process
  }
  // the pid runs: it is the holder unless the pid was reused since (another start time)
  const now = procStart(h.pid);
  return h.procStart === undefined || now === undefined || now === h.procStart;
}

/** A process's start time since boot from /proc (Linux); undefined elsewhere. */
function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
