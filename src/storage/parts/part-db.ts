import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { LogEvent } from '../../events/event.js';
import type { EncodedBatch } from '../../events/writer.js';
import type { buildParts } from './part-build.js';
import { partBatch } from './part-batch.js';

/** What a decode worker needs to write parts (given by the pool as workerData). */
export interface PartWorkerOptions {
  /** The engine's parts folder (engine.partsDir). */
  dir: string;
  /** Bodies of fewer events go through the WAL. */
  minEvents: number;
}

/**
 * A decode worker's part writer: its own in-memory DuckDB (one thread, a small memory limit: a part
 * is at most one granule), opened at the first part. When DuckDB cannot be opened here (a build
 * without the native module in workers), or a part fails, the batch goes through the WAL instead:
 * a part is an optimisation, never a reason to refuse a write.
 */
export class PartWriter {
  private db: Promise<PartDb | string> | undefined;
  /** Why the last write() that tried parts fell back to the WAL; undefined after one that wrote them. */
  failed: string | undefined;

  constructor(private readonly o: PartWorkerOptions) {}

  /**
   * The events as a batch of parts, or undefined when they go through the WAL. Its caller runs one
   * at a time (the worker takes one job at a time): the parts share one connection and its table.
   */
  async write(events: LogEvent[]): Promise<EncodedBatch | undefined> {
    this.failed = undefined;
    if (this.o.minEvents <= 0 || events.length < this.o.minEvents) return undefined;
    const db = await (this.db ??= open());
    if (typeof db === 'string') {
      this.failed = db;
      return undefined;
    }
    try {
      return partBatch(await db.build(db.connection, events, this.o.dir));
    } catch (e) {
      // the WAL path takes the batch (buildParts removed its files); the operator hears why
      this.failed = `cannot write a batch as parts: ${(e as Error).message}`;
      return undefined;
    }
  }

  /**
   * Closes DuckDB, once the job in hand is done. The worker calls it before it exits: a worker
   * terminated with the native addon's objects still open can abort the whole process (seen at
   * shutdown as "terminate called after throwing an instance of 'Napi::Error'").
   */
  async close(): Promise<void> {
    const db = await this.db;
    if (typeof db !== 'object') return;
    db.connection.closeSync();
    db.instance.closeSync();
  }
}

interface PartDb {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  build: typeof buildParts;
}

/**
 * DuckDB and the part builder, loaded at the first part: a worker that never writes one never
 * loads the addon. Or why they cannot be, for every batch after to report.
 */
async function open(): Promise<PartDb | string> {
  try {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { buildParts } = await import('./part-build.js');
    const instance = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
    return { instance, connection: await instance.connect(), build: buildParts };
  } catch (e) {
    return `cannot open DuckDB in a decode worker to write parts: ${(e as Error).message}`;
  }
}
