import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fieldsOf, partitionsOf } from '../blocks/seal-blocks.js';
import { partKey } from '../partition.js';
import type { LiveSegment, LivePartition } from './live-segment.js';
import { walRowsSql } from './wal-line.js';
import { Wal } from './wal.js';

// The accounting of a closed WAL segment (its live partitions), kept in `wal/<seq>.summary.json`
// so a restart need not re-read the segment. Only restart speed depends on it: without the file,
// DuckDB computes the same accounting from the segment itself.

/**
 * The live accounting of a WAL segment replayed at start-up, computed by DuckDB from the file
 * (instead of parsing every line in JS), so a large WAL does not slow the restart.
 */
export async function summarizeSegment(c: DuckDBConnection, path: string): Promise<LivePartition[]> {
  const src = walRowsSql([path]);
  const parts = await partitionsOf(c, src);
  const fields = await fieldsOf(c, src);
  return parts.map((p) => ({
    env: p.env,
    index: p.index,
    day: p.day,
    count: p.count,
    minUs: p.minUs,
    maxUs: p.maxUs,
    fields: new Map(
      (fields.get(partKey(p.env, p.index, p.day)) ?? []).map((f) => [f.name, { bits: f.bits, count: f.count }]),
    ),
  }));
}

/** A closed segment's accounting as JSON (`wal/<seq>.summary.json`), so a restart need not re-read it. */
export function summaryJson(seg: LiveSegment): string {
  return JSON.stringify(
    [...seg.partitions.values()].map((p) => ({
      ...p,
      fields: [...p.fields],
      minutes: p.minutes ? [...p.minutes] : undefined,
    })),
  );
}

/** Parses summaryJson; summaries written before minute counts existed give partitions without them. */
export function parseSummary(text: string): LivePartition[] {
  type Stored = Omit<LivePartition, 'fields' | 'minutes'> & {
    fields: [string, { bits: number; count: number }][];
    minutes?: [number, number][];
  };
  const parts = JSON.parse(text) as Stored[];
  return parts.map((p) => ({
    ...p,
    fields: new Map(p.fields),
    minutes: Array.isArray(p.minutes) ? new Map(p.minutes) : undefined,
  }));
}

/**
 * Best effort, never throws: a missing summary only means the restart asks DuckDB instead. A
 * failed write (disk full, read-only) removes its partial temp file and answers false; the seal
 * of the segment must not wait on it.
 */
export function writeSummary(dir: string, seg: LiveSegment): boolean {
  const path = Wal.summaryPath(dir, seg.seq);
  try {
    writeFileSync(path + '.tmp', summaryJson(seg));
    renameSync(path + '.tmp', path);
    return true;
  } catch {
    try {
      rmSync(path + '.tmp', { force: true });
    } catch {
      // a read-only disk keeps nothing to remove; a stray temp file is removed at the next start (recovery.ts)
    }
    return false;
  }
}

/** The accounting of segment `seq` from its summary file; undefined when missing or torn (replay.ts asks DuckDB). */
export function readSummary(dir: string, seq: number): LivePartition[] | undefined {
  try {
    return parseSummary(readFileSync(Wal.summaryPath(dir, seq), 'utf8'));
  } catch {
    return undefined;
  }
}
