import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { QueryResult, RowChunk } from './types.js';
import { lit } from './sql-quote.js';
import { registerIplocation } from '../geo/duckdb-function.js';

/**
 * The one DuckDB instance of the process, with a small pool of connections.
 * Every query runs here: scans for search, sealing, merging. `memory_limit` and `threads` come
 * from config (docs/decisions/0009-duckdb-engine.md); spills go to `<dataDir>/tmp/duckdb`.
 */
export class Duck {
  private readonly idle: DuckDBConnection[] = [];
  private closed = false;

  private constructor(private readonly instance: DuckDBInstance) {}

  static async open(opts: { dataDir: string; memoryLimit: string; threads: number }): Promise<Duck> {
    const tmp = join(opts.dataDir, 'tmp', 'duckdb');
    mkdirSync(tmp, { recursive: true });
    const instance = await DuckDBInstance.create(':memory:', {
      memory_limit: opts.memoryLimit,
      threads: String(opts.threads),
      temp_directory: tmp,
    });
    const duck = new Duck(instance);
    // footers of immutable blocks never change: caching them makes every scan's bind cheap
    await duck.run('SET parquet_metadata_cache = true');
    // memory goes back to the OS after each seal or merge instead of staying with the allocator:
    // peak RSS of 5M events over HTTP went from 1,044 to 847 MiB. Blocks are local files the OS
    // already caches, so DuckDB's own copy of their bytes only adds to RSS.
    await duck.run("SET allocator_flush_threshold = '32MB'");
    await duck.run('SET allocator_background_threads = true');
    await duck.run('SET enable_external_file_cache = false');
    // the query language's `iplocation`; registering reads no database file (src/geo/)
    await duck.with(async (c) => registerIplocation(c));
    return duck;
  }

  /** Runs `fn` on a pooled connection; the connection returns to the pool afterwards. */
  async with<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = await this.take();
    try {
      return await fn(c);
    } finally {
      this.give(c);
    }
  }

  private async take(): Promise<DuckDBConnection> {
    return this.idle.pop() ?? (await this.instance.connect());
  }

  private give(c: DuckDBConnection): void {
    if (this.closed || this.idle.length >= 4) c.closeSync();
    else this.idle.push(c);
  }

  async run(sql: string): Promise<void> {
    await this.with((c) => c.run(sql));
  }

  /**
   * Runs a query and reads its rows. When `signal` aborts before the rows are read, DuckDB is
   * interrupted (it stops within a vector or so) and the query rejects with the signal's reason;
   * the connection stays usable.
   */
  async query(sql: string, signal?: AbortSignal): Promise<QueryResult> {
    if (!signal) return this.with((c) => queryOn(c, sql));
    return this.with(async (c) => {
      const stop = () => c.interrupt();
      signal.addEventListener('abort', stop, { once: true });
      try {
        signal.throwIfAborted(); // before the listener was there, or while the connection was being taken
        const r = await queryOn(c, sql);
        // the interrupt can come too late to stop a statement that was about to finish: a signal that
        // fired while it ran still wins, so a time limit means the same on a busy machine as on a quiet one
        signal.throwIfAborted();
        return r;
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw e;
      } finally {
        signal.removeEventListener('abort', stop);
      }
    });
  }

  /**
   * Runs a query and yields its rows a DuckDB chunk (about 2048 rows) at a time, in the statement's
   * order. The next chunk is computed only when the consumer asks for it, so a slow consumer slows
   * DuckDB down instead of piling rows up in memory. Holds one connection from the first `next()`
   * until the iteration ends; a consumer that stops early (break, throw) closes that connection
   * rather than pooling it with a half-read result. When `signal` aborts, DuckDB is interrupted and
   * the iteration rejects with the signal's reason.
   */
  async *stream(sql: string, signal?: AbortSignal): AsyncGenerator<RowChunk> {
    const c = await this.take();
    const stop = () => c.interrupt();
    signal?.addEventListener('abort', stop, { once: true });
    let done = false;
    try {
      signal?.throwIfAborted();
      const result = await c.stream(sql);
      const columns = result.columnNames();
      for await (const rows of result.yieldRowsJs()) {
        // an interrupt between two fetches ends the result quietly (an empty chunk), not with an error
        signal?.throwIfAborted();
        yield { columns, rows: plainRows(rows) };
      }
      signal?.throwIfAborted();
      done = true;
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      throw e;
    } finally {
      signal?.removeEventListener('abort', stop);
      if (done) this.give(c);
      else c.closeSync();
    }
  }

  /** DuckDB's own memory accounting in MiB by tag (benchmarks: where the memory is). */
  async memoryByTag(): Promise<Record<string, number>> {
    const r = await this.query('SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0');
    return Object.fromEntries(r.rows.map(([tag, bytes]) => [String(tag), Math.round(Number(bytes) / 2 ** 20)]));
  }

  close(): void {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.closeSync();
    this.instance.closeSync();
  }
}

/** Runs a statement and returns plain JS rows: BIGINTs as numbers when safe, TIMESTAMPs as Date. */
export async function queryOn(c: DuckDBConnection, sql: string): Promise<QueryResult> {
  const reader = await c.runAndReadAll(sql);
  return { columns: reader.columnNames(), rows: plainRows(reader.getRowsJS()) };
}

/** BIGINTs as numbers when safe, else as text; in place. */
function plainRows(rows: unknown[][]): unknown[][] {
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (typeof v === 'bigint')
        row[i] = v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v.toString();
    }
  }
  return rows;
}

/**
 * The path of a top-level key as a SQL literal, written as a JSON Pointer (`/id.orig_h`): DuckDB
 * reads a `*` in a `$."…"` path as a wildcard even quoted, so a field named `*` made every read of
 * its rows fail; a pointer escapes only `~` (`~0`) and `/` (`~1`) and has no wildcard.
 */
export function jsonKeyPath(name: string): string {
  return lit(`/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

/** jsonKeyPath as SQL for a key held in the column or expression `sql`. */
export function jsonKeyPathSql(sql: string): string {
  return `'/' || replace(replace(${sql}, '~', '~0'), '/', '~1')`;
}
