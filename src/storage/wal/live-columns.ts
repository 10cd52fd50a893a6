import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Duck } from '../duck.js';
import { lit } from '../sql-quote.js';
import type { LiveSegment } from './live-segment.js';
import { walRowsSql } from './wal-line.js';

// Columnar copies of closed WAL segments that wait for their seal (docs/storage.md, "Live data
// in columns"). A search of unsealed events reads a segment's JSON again each time (≈ 0.1 s per
// 64 MiB segment); right after a load several segments wait, and every search paid that for each.
// The copy is made once, Parquet with small row groups, and then serves both the searches and the
// seal. It is derived data: never the source of truth (the WAL is), deleted with the segment, and
// cleared at start (recovery.ts) like any scratch file.

/**
 * Row groups of a columnar copy. Small, so the seal's per-partition passes (one sorted COPY and
 * one token-filter query per env/index/day) skip the row groups of other days by their `_day`
 * min/max statistics instead of decompressing most of the segment each time (WAL order is roughly
 * time order). Measured: ~15 % less seal CPU on the bench data set than the default 122,880.
 */
const ROW_GROUP = 8192;

/** File name of a segment's columnar copy inside the scratch directory. */
export const COLUMNS_FILE = /^live-\d+\.parquet$/;

/**
 * Writes `seg`'s columnar copy into `dir` and points the segment at it. The path is set only once
 * the file is complete, so a scan planned earlier keeps reading the JSON.
 */
export async function writeColumns(c: DuckDBConnection, seg: LiveSegment, dir: string): Promise<void> {
  const file = join(dir, `live-${seg.seq}.parquet`);
  try {
    await c.run(
      `COPY ${walRowsSql([seg.path])} TO ${lit(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${ROW_GROUP})`,
    );
  } catch (e) {
    rmSync(file, { force: true });
    throw e;
  }
  seg.columns = file;
}

/** The rows of live segments in the seal's shape: their columnar copies where made, else their JSON. */
export function liveRowsSql(segs: LiveSegment[]): string {
  const copies = segs.flatMap((s) => (s.columns ? [lit(s.columns)] : []));
  const json = segs.flatMap((s) => (s.columns ? [] : [s.path]));
  const parts: string[] = [];
  if (copies.length > 0) parts.push(`SELECT * FROM read_parquet([${copies.join(', ')}])`);
  if (json.length > 0) parts.push(`SELECT * FROM ${walRowsSql(json)}`);
  return `(${parts.join(' UNION ALL ')})`;
}

/**
 * Makes columnar copies one at a time, apart from the job queue (a copy must not wait behind the
 * seals it is meant to speed up). A failed copy is only a missed speed-up: the segment is read
 * as JSON as before.
 */
export class LiveColumns {
  private chain: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly duck: Duck,
    private readonly dir: string,
    private readonly onError: (err: unknown, seq: number) => void,
  ) {}

  /** Queues the copy of a closed segment. */
  add(seg: LiveSegment): void {
    const p = this.chain.then(async () => {
      if (this.stopped || seg.columns) return;
      await this.duck.with((c) => writeColumns(c, seg, this.dir)).catch((err: unknown) => this.onError(err, seg.seq));
    });
    this.pending.set(seg.seq, p);
    this.chain = p.finally(() => this.pending.delete(seg.seq));
  }

  /** Resolves once the copy of segment `seq` is made or has failed (at once if none is queued). */
  async settled(seq: number): Promise<void> {
    await this.pending.get(seq);
  }

  /** Skips queued copies and waits for the running one (shutdown, before DuckDB closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.chain;
  }
}
