import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../errors/svc-error.js';
import { syncDir } from '../fsync.js';
import { describeErrno } from '../disk-faults.js';

/**
 * The write-ahead log: a directory of NDJSON segments `wal/<seq>.ndjson`, one LogEvent per line
 * (the LogEvent's own JSON, see walLine). Only the writer's drain loop appends (one caller at a
 * time); a segment is closed by rotate() and never appended to again, also not after a restart.
 *
 * Recovery rule: a segment's events are in blocks exactly when `wal/<seq>.sealed` exists or the
 * segment file is gone. The marker is written after every block of the segment is durable, then
 * the segment is deleted, then the marker. See docs/storage.md.
 */
export class Wal {
  private fh: FileHandle | undefined;
  private current: number;
  private currentBytes = 0;
  private currentOpenedAt = 0;
  /**
   * Set when a failed append could not be cut back off the open segment: appending after its torn
   * tail would glue the next line onto it (and lose that acknowledged event), so the owner must
   * rotate before the next append.
   */
  damaged = false;

  constructor(
    readonly dir: string,
    firstSeq: number,
  ) {
    mkdirSync(dir, { recursive: true });
    this.current = firstSeq;
  }

  /** Sequence numbers of the segment files present, ascending. */
  static segments(dir: string): number[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((n) => /^\d+\.ndjson$/.test(n))
      .map((n) => Number(n.split('.')[0]))
      .sort((a, b) => a - b);
  }

  static markers(dir: string): number[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((n) => /^\d+\.sealed$/.test(n))
      .map((n) => Number(n.split('.')[0]));
  }

  static segmentPath(dir: string, seq: number): string {
    return join(dir, `${String(seq).padStart(12, '0')}.ndjson`);
  }

  static summaryPath(dir: string, seq: number): string {
    return join(dir, `${String(seq).padStart(12, '0')}.summary.json`);
  }

  static markerPath(dir: string, seq: number): string {
    return join(dir, `${String(seq).padStart(12, '0')}.sealed`);
  }

  get currentSeq(): number {
    return this.current;
  }

  get bytes(): number {
    return this.currentBytes;
  }

  get openedAt(): number {
    return this.currentOpenedAt;
  }

  /**
   * Appends and fdatasyncs; resolves once the bytes are durable. One call at a time. On failure
   * (disk full, file too large, I/O error) nothing of `data` stays: the segment is cut back to its
   * last durable length, so a rejected write cannot come back at replay and the next append starts
   * on a line boundary. Throws storage_unavailable (503, retry later).
   */
  async append(data: Buffer): Promise<void> {
    if (this.damaged)
      throw new SvcError(
        'storage_unavailable',
        'cannot write the write-ahead log: the open segment must be closed first',
        { retryAfterSecs: 5 },
      );
    try {
      if (!this.fh) {
        this.fh = await open(Wal.segmentPath(this.dir, this.current), 'a');
        this.currentOpenedAt = Date.now();
        syncDir(this.dir); // the new file's name must survive a crash too
      }
      let off = 0;
      while (off < data.length) {
        const { bytesWritten } = await this.fh.write(data, off, data.length - off);
        off += bytesWritten;
      }
      await this.fh.datasync();
    } catch (err) {
      await this.cutBack();
      const code = (err as NodeJS.ErrnoException).code;
      const why = code ? describeErrno(code) : (err as Error).message;
      throw new SvcError(
        'storage_unavailable',
        `cannot write the write-ahead log (${why}); nothing of this request was stored`,
        { retryAfterSecs: 5, cause: err },
      );
    }
    this.currentBytes += data.length;
  }

  /** Cuts the open segment back to its durable length after a failed append, else marks it damaged. */
  private async cutBack(): Promise<void> {
    if (!this.fh) return;
    try {
      await this.fh.truncate(this.currentBytes);
      await this.fh.datasync();
    } catch {
      this.damaged = true;
    }
  }

  /** Closes the current segment (if anything was written) and returns its seq; the next append opens seq+1. */
  async rotate(): Promise<number | undefined> {
    if (!this.fh) return undefined;
    const fh = this.fh;
    this.fh = undefined;
    this.damaged = false;
    // a close error loses nothing: every acknowledged byte was fdatasynced by its append
    await fh.close().catch(() => undefined);
    const closed = this.current;
    this.current += 1;
    this.currentBytes = 0;
    return closed;
  }

  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
  }
}
