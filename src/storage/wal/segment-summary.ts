import type { DuckDBConnection } from '@duckdb/node-api';
import { fieldsOf, partitionsOf } from '../blocks/seal-blocks.js';
import { partKey } from '../partition.js';
import { walReadSql, type LivePartition } from './live-segment.js';

/**
 * The live accounting of a WAL segment replayed at start-up, computed by DuckDB from the file
 * (instead of parsing every line in JS), so a large WAL does not slow the restart.
 */
export async function summarizeSegment(c: DuckDBConnection, path: string): Promise<LivePartition[]> {
  const src = `(SELECT make_timestamp(timeUs) AS _time, env, "index", message, fields AS _f, timeUs // 86400000000 AS _day
                 FROM ${walReadSql([path])} WHERE timeUs IS NOT NULL)`;
  const parts = await partitionsOf(c, src);
  const fields = await fieldsOf(c, src);
  return parts.map((p) => ({
    env: p.env,
    index: p.index,
    day: p.day,
    count: p.count,
    minUs: p.minUs,
    maxUs: p.maxUs,
    fields: new Map((fields.get(partKey(p.env, p.index, p.day)) ?? []).map((f) => [f.name, { bits: f.bits, count: f.count }])),
  }));
}
