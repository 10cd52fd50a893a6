import type { DuckDBConnection } from '@duckdb/node-api';
import { queryOn } from '../duck.js';
import { ident, lit } from '../sql-quote.js';
import type { Block } from './block-files.js';
import { writeBlockFile, type BlockTarget } from './block-writer.js';

// Delete by query (docs/decisions/0026-delete-by-query.md): one block written again without the
// rows a delete matched. The new block names the old in `replaces`, as a merge does, so start-up
// recovery (recovery.ts, step 2) and the shared store's uploader treat the swap like a merge's:
// the old block or the new one, never both.

/** Counts of promoted columns in the kept rows (non-null values), by field name. */
async function promotedCounts(c: DuckDBConnection, b: Block, from: string): Promise<Map<string, number>> {
  const promoted = b.meta.fields.filter((f) => f.promoted);
  if (promoted.length === 0) return new Map();
  const r = await queryOn(c, `SELECT ${promoted.map((f) => `count(${ident(f.name)})`).join(', ')} FROM ${from}`);
  return new Map(promoted.map((f, i) => [f.name, Number(r.rows[0][i])]));
}

/**
 * Writes `b` again without the file rows `doomed` lists (a table with one column `_drow`, the
 * `file_row_number`s to drop), through the block writer seals and merges use. The block keeps its
 * columns and types; an event count of zero gives an empty block that still replaces the old one
 * (a block that merely vanished would be restored from the shared store by the uploader).
 */
export async function rewriteWithout(
  c: DuckDBConnection,
  b: Block,
  doomed: string,
  target: BlockTarget,
): Promise<Block> {
  const from = `(SELECT * EXCLUDE (file_row_number) FROM read_parquet(${lit(b.path)}, file_row_number = true) AS r ANTI JOIN ${doomed} AS d ON r.file_row_number = d._drow)`;
  const kept = Number((await queryOn(c, `SELECT count(*) FROM ${from}`)).rows[0][0]);
  const counts = await promotedCounts(c, b, from);
  // a field outside the columns (`_extra`) is counted as at most the events kept
  const fields = b.meta.fields.map((f) => ({ ...f, count: counts.get(f.name) ?? Math.min(f.count, kept) }));
  return writeBlockFile(c, target, {
    env: b.meta.env,
    index: b.meta.index,
    day: b.meta.day,
    fields,
    hasExtra: b.meta.hasExtra,
    select: (orderBy) => `SELECT * FROM ${from} ORDER BY ${orderBy}`,
    rows: { from, count: kept },
    extent: async (written, tmp) => {
      if (written === 0) return { count: 0, minUs: b.meta.minUs, maxUs: b.meta.minUs };
      const r = await queryOn(c, `SELECT epoch_us(min(_time)), epoch_us(max(_time)) FROM read_parquet(${lit(tmp)})`);
      return { count: written, minUs: Number(r.rows[0][0]), maxUs: Number(r.rows[0][1]) };
    },
    origin: { walSeg: b.meta.walSeg, replaces: [b.meta.name] },
  });
}
