import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import { syncFile } from '../shared-store/files.js';
import { str } from '../query/sql.js';
import { readLookupCsv } from './csv.js';

/**
 * The Parquet copy of a lookup table, as the query side reads it (replica.ts): column `r` is the
 * row's place in the CSV (0 first), then `c0`, `c1`, … one VARCHAR per CSV column in header order.
 * Positional names, so that any header text (quotes, case twins DuckDB would confuse) is safe.
 */
export const ROW_COLUMN = 'r';
export const valueColumn = (i: number): string => `c${i}`;

/**
 * Reads and checks the CSV (csv.ts: throws invalid_input) and writes its Parquet copy to `out`,
 * durably. A DuckDB of its own, small and short-lived: the upload never competes with searches for
 * the engine's connections, and its memory is given back when it ends.
 */
export async function writeLookupParquet(csv: Buffer, out: string): Promise<{ columns: string[]; rows: number }> {
  const duck = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
  const conn = await duck.connect();
  let appender: DuckDBAppender | undefined;
  let n = 0;
  try {
    const table = await readLookupCsv(csv, {
      async header(columns) {
        await conn.run(
          `CREATE TABLE t (${ROW_COLUMN} BIGINT, ${columns.map((_, i) => `${valueColumn(i)} VARCHAR`).join(', ')})`,
        );
        appender = await conn.createAppender('t');
      },
      row(values) {
        const a = appender!;
        a.appendBigInt(BigInt(n++));
        for (const v of values) {
          if (v === null) a.appendNull();
          else a.appendVarchar(v);
        }
        a.endRow();
      },
    });
    appender!.closeSync();
    appender = undefined;
    await conn.run(`COPY t TO ${str(out)} (FORMAT parquet, COMPRESSION zstd)`);
    await syncFile(out);
    return table;
  } finally {
    try {
      appender?.closeSync();
    } catch {
      // the rows of a refused upload: nothing to keep
    }
    conn.closeSync();
    duck.closeSync();
  }
}
