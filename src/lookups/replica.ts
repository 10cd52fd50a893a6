import { existsSync } from 'node:fs';
import { readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { LookupRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import type { LookupCatalog, LookupTable } from '../query/lookup-catalog.js';
import { str } from '../query/sql.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import { localPath, lookupsDir, storeKey, type LookupFile } from './layout.js';
import { ROW_COLUMN, valueColumn } from './parquet.js';

export interface ReplicaOptions {
  control: ControlStore;
  /** SVC_STORE: where the versions uploaded on other nodes are fetched from. */
  store?: ObjectStore;
  dataDir: string;
  log: Logger;
  /** How long a replaced version's files stay, for searches compiled against them just before. */
  graceMs?: number;
  /** The wait before fetching again what could not be fetched. */
  retryMs?: number;
}

interface LocalCopy {
  id: string;
  table: LookupTable;
}

const GRACE_MS = 60_000;
const RETRY_MS = 5_000;
const FILES: LookupFile[] = ['parquet', 'csv'];

/**
 * This node's copies of the lookup tables, and the catalog queries compile against (LookupCatalog).
 * Follows the control plane: when a table is added or replaced (on this node or, seen through the
 * control plane's reload, on another), its Parquet copy is fetched from the shared store into the
 * data dir; the replaced version's files go after a grace period. Until the new copy is here,
 * searches read the version this node has, so a replace never fails a search.
 */
export class LookupReplica implements LookupCatalog {
  private readonly local = new Map<string, LocalCopy>();
  private syncing: Promise<void> | undefined;
  private again = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private readonly warned = new Set<string>();

  constructor(private readonly opts: ReplicaOptions) {}

  /**
   * Removes files a crash left behind and takes the copies at hand; the others are fetched in the
   * background (a store outage never holds up the start: searches using them wait, with a 503).
   */
  async start(): Promise<void> {
    await this.removeStrays();
    for (const rec of this.opts.control.doc.lookups ?? []) {
      const path = localPath(this.opts.dataDir, rec.name, rec.id, 'parquet');
      if (existsSync(path)) this.adopt(rec, path);
    }
    this.opts.control.onChange(() => this.requestSync());
    this.requestSync();
  }

  table(name: string): LookupTable | undefined {
    const rec = this.record(name);
    if (!rec) return undefined;
    let copy = this.local.get(name);
    if (copy?.id !== rec.id) {
      // fast path: the version was made on this node a moment ago, before the sync saw it
      const path = localPath(this.opts.dataDir, rec.name, rec.id, 'parquet');
      if (existsSync(path)) copy = this.adopt(rec, path);
      else this.requestSync();
    }
    if (!copy)
      throw new SvcError(
        'storage_unavailable',
        `lookup table "${name}" is still being copied to this node; try again in a moment`,
        { retryAfterSecs: 1 },
      );
    return copy.table;
  }

  /** Stops following the control plane; files are left for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    await this.syncing;
  }

  private record(name: string): LookupRecord | undefined {
    return (this.opts.control.doc.lookups ?? []).find((r) => r.name === name);
  }

  private adopt(rec: LookupRecord, path: string): LocalCopy {
    const copy: LocalCopy = {
      id: rec.id,
      table: {
        name: rec.name,
        relation: `read_parquet(${str(path)})`,
        columns: rec.columns.map((name, i) => ({ name, sql: valueColumn(i) })),
        rowSql: ROW_COLUMN,
      },
    };
    const before = this.local.get(rec.name);
    this.local.set(rec.name, copy);
    if (before && before.id !== rec.id) this.retire(rec.name, before.id);
    return copy;
  }

  /** One sync at a time; a change arriving meanwhile runs another after it. */
  private requestSync(): void {
    if (this.closed) return;
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = (async () => {
      do {
        this.again = false;
        await this.syncOnce();
      } while (this.again && !this.closed);
    })()
      .catch((err: unknown) => this.opts.log.error({ err }, 'cannot sync the lookup tables'))
      .finally(() => (this.syncing = undefined));
  }

  private async syncOnce(): Promise<void> {
    const records = this.opts.control.doc.lookups ?? [];
    let failed = 0;
    for (const rec of records) {
      if (this.local.get(rec.name)?.id === rec.id) continue;
      try {
        const path = localPath(this.opts.dataDir, rec.name, rec.id, 'parquet');
        if (!existsSync(path)) await this.fetch(rec, path);
        this.adopt(rec, path);
      } catch (err) {
        failed++;
        // once per version, not at every retry
        if (!this.warned.has(rec.id))
          this.opts.log.warn({ err, lookup: rec.name }, 'cannot fetch a lookup table; searches using it wait for it');
        this.warned.add(rec.id);
      }
    }
    const names = new Set(records.map((r) => r.name));
    for (const [name, copy] of this.local) {
      if (names.has(name)) continue;
      this.local.delete(name);
      this.retire(name, copy.id);
    }
    if (failed > 0) this.later(() => this.requestSync(), this.opts.retryMs ?? RETRY_MS);
  }

  private async fetch(rec: LookupRecord, path: string): Promise<void> {
    if (!this.opts.store) throw new Error(`${path} is missing from the data dir (upload the table again)`);
    await this.opts.store.download(storeKey(rec.name, rec.id, 'parquet'), path);
  }

  /** Deletes a version's local files after the grace period. */
  private retire(name: string, id: string): void {
    this.later(() => void this.removeVersion(name, id), this.opts.graceMs ?? GRACE_MS);
  }

  private async removeVersion(name: string, id: string): Promise<void> {
    for (const f of FILES) await unlink(localPath(this.opts.dataDir, name, id, f)).catch(() => undefined);
    // the folder of a deleted table goes once empty (rmdir refuses otherwise)
    await rmdir(join(lookupsDir(this.opts.dataDir), name)).catch(() => undefined);
  }

  private later(fn: () => void, ms: number): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Files of versions no record names: an upload a crash cut short, a copy replaced before a stop. */
  private async removeStrays(): Promise<void> {
    const root = lookupsDir(this.opts.dataDir);
    const current = new Set((this.opts.control.doc.lookups ?? []).map((r) => `${r.name}/${r.id}`));
    for (const dir of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!dir.isDirectory()) continue;
      for (const f of await readdir(join(root, dir.name))) {
        const id = f.replace(/\.(csv|parquet)$/, '');
        if (id === f || !current.has(`${dir.name}/${id}`)) await unlink(join(root, dir.name, f)).catch(() => undefined);
      }
      await rmdir(join(root, dir.name)).catch(() => undefined);
    }
  }
}
