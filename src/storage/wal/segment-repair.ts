import { open, rename, rm, stat } from 'node:fs/promises';
import type { LogEvent } from '../../events/event.js';
import { syncDir } from '../fsync.js';
import { guardedLine, timeInRange, WAL_LINE_MAX_BYTES } from './event-guard.js';
import { LiveSegment } from './live-segment.js';
import { writeSummary } from './segment-summary.js';
import { Wal } from './wal.js';

// The seal's fallback path (docs/storage.md, "When a seal fails"): a closed WAL segment DuckDB
// cannot read or seal (a line over its 16 MiB object limit, a time outside years 1..9999, both
// written before the store guarded its lines) is read again here, in JS, line by line, and
// rewritten with each line through the store's guard (event-guard.ts). The rewrite replaces the
// segment in one atomic rename: every acknowledged event is in the old file or the new one, never
// both and never neither, so the recovery rule does not change.

export interface RepairReport {
  /** The rewritten segment's accounting (partitions, fields, minute counts). */
  seg: LiveSegment;
  /** Lines cut or given a new time. */
  changed: number;
  /** Lines that are not a whole JSON event (a torn tail): DuckDB's read skipped them too. */
  skipped: number;
}

const READ_CHUNK = 4 * 1024 * 1024;
const WRITE_CHUNK = 4 * 1024 * 1024;

/**
 * Rewrites closed segment `seq` of `walDir` so DuckDB can read and seal it, and answers its new
 * accounting (also written as its summary). Events with a time outside years 1..9999 get the
 * segment file's modification time (about when they arrived). A line is held in memory whole.
 */
export async function repairSegment(walDir: string, seq: number, maxEventBytes: number): Promise<RepairReport> {
  const path = Wal.segmentPath(walDir, seq);
  const tmp = `${path}.repair.tmp`; // recovery deletes wal/*.tmp: a crash mid-rewrite leaves the segment as it was
  const fallbackUs = Math.trunc((await stat(path)).mtimeMs) * 1000;
  const seg = new LiveSegment(seq, path);
  const report = { seg, changed: 0, skipped: 0 };
  const out = await open(tmp, 'w');
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes > 0) await out.write(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
    };
    for await (const raw of lines(path)) {
      const line = fitLine(raw, { maxEventBytes, fallbackUs }, report);
      if (line === undefined) continue;
      const b = Buffer.from(line + '\n', 'utf8');
      pending.push(b);
      pendingBytes += b.length;
      if (pendingBytes >= WRITE_CHUNK) await flush();
    }
    await flush();
    await out.datasync();
  } catch (e) {
    await out.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await out.close();
  // the old summary goes first: a crash after the rename must not pair the new file with it
  await rm(Wal.summaryPath(walDir, seq), { force: true });
  await rename(tmp, path);
  syncDir(walDir);
  writeSummary(walDir, seg);
  return report;
}

/** One line of the old segment as the new segment holds it, recorded in the accounting; undefined to skip. */
function fitLine(
  raw: Buffer,
  guard: { maxEventBytes: number; fallbackUs: number },
  r: RepairReport,
): string | undefined {
  let ev: LogEvent;
  try {
    ev = JSON.parse(raw.toString('utf8')) as LogEvent;
  } catch {
    r.skipped++;
    return undefined;
  }
  if (!isEvent(ev)) {
    r.skipped++;
    return undefined;
  }
  const fits = timeInRange(ev.timeUs) && raw.length <= WAL_LINE_MAX_BYTES;
  const line = guardedLine(ev, guard);
  if (!fits) r.changed++;
  r.seg.record(ev);
  return line;
}

function isEvent(v: unknown): v is LogEvent {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  if (typeof e.timeUs !== 'number' || typeof e.env !== 'string' || typeof e.index !== 'string') return false;
  for (const k of ['host', 'source', 'sourcetype', 'message'])
    if (typeof e[k] !== 'string') e[k] = e[k] == null ? '' : JSON.stringify(e[k]); // a number or boolean reads the same, an object as JSON
  if (typeof e.fields !== 'object' || e.fields === null || Array.isArray(e.fields)) e.fields = {};
  return true;
}

/** Non-empty lines of a file ending in LF (a torn last line is not one): what a complete read must find. */
export async function countLines(path: string): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let n = 0;
    let prev = 10; // the byte before the current one; a line starts after an LF
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, null);
      if (bytesRead === 0) return n;
      // memchr-speed scan: an LF right after an LF is an empty line, not an event
      for (let i = buf.indexOf(10, 0); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1))
        if ((i === 0 ? prev : buf[i - 1]) !== 10) n++;
      prev = buf[bytesRead - 1];
    }
  } finally {
    await fh.close();
  }
}

/** The lines of a file (without their LF), however long, read in chunks. */
async function* lines(path: string): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r');
  try {
    let parts: Buffer[] = [];
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = buf.indexOf(10, start)) {
        parts.push(buf.subarray(start, nl));
        yield parts.length === 1 ? parts[0] : Buffer.concat(parts);
        parts = [];
        start = nl + 1;
      }
      if (start < bytesRead) parts.push(buf.subarray(start, bytesRead));
    }
    if (parts.length > 0) yield Buffer.concat(parts); // a last line without LF: a torn tail unless it parses
  } finally {
    await fh.close();
  }
}
