import { mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import { checkName } from '../control/envs.js';
import type { LookupRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import { absent, syncDir, writeTemp } from '../shared-store/files.js';
import { StoreUnavailable, type ObjectStore } from '../shared-store/object-store.js';
import { firstRows } from './csv.js';
import { localPath, newVersionId, storeKey, type LookupFile } from './layout.js';
import { writeLookupParquet } from './parquet.js';

/** Tables the control plane holds at most: each is a record in the one document every node reads. */
export const MAX_LOOKUPS = 500;

export interface LookupServiceOptions {
  control: ControlStore;
  /** SVC_STORE: every version is put there too, for the other nodes. */
  store?: ObjectStore;
  dataDir: string;
  clock: Clock;
  log: Logger;
}

/** A table as the admin API shows it: the record without the version id of its files. */
export type LookupInfo = Omit<LookupRecord, 'id'>;

export function lookupInfo(r: LookupRecord): LookupInfo {
  return {
    name: r.name,
    columns: [...r.columns],
    rows: r.rows,
    bytes: r.bytes,
    updatedAt: r.updatedAt,
    updatedBy: r.updatedBy,
  };
}

/**
 * The admin's side of lookup tables (docs/lookups.md): upload (a new version replaces the table
 * whole), list, download, preview, delete. A version's files are written, made durable and, with
 * SVC_STORE, stored before the control plane names it, so a node that sees the record can fetch
 * them; the replaced version's stored objects are deleted after, its local files by each node's
 * replica (replica.ts). Safe to call concurrently: the control plane orders the writes.
 */
export class LookupService {
  constructor(private readonly opts: LookupServiceOptions) {}

  list(): LookupInfo[] {
    return [...(this.opts.control.doc.lookups ?? [])]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(lookupInfo);
  }

  get(name: string): LookupRecord {
    const rec = (this.opts.control.doc.lookups ?? []).find((r) => r.name === name);
    if (!rec) throw new SvcError('not_found', `no lookup table named "${name}"`);
    return rec;
  }

  /** Checks the CSV, stores it as a new version and makes it the table; `created` when there was none. */
  async put(name: string, csv: Buffer, by: string): Promise<{ lookup: LookupInfo; created: boolean }> {
    checkName('name', name);
    const id = newVersionId();
    try {
      const rec = await this.writeVersion(name, id, csv, by);
      const before = await this.opts.control.mutate((doc) => {
        const list = (doc.lookups ??= []);
        const i = list.findIndex((r) => r.name === name);
        if (i < 0 && list.length >= MAX_LOOKUPS)
          throw new SvcError('limit_reached', `at most ${MAX_LOOKUPS} lookup tables; delete one first`);
        const old = i < 0 ? undefined : list[i];
        if (old) list[i] = rec;
        else list.push(rec);
        return old;
      });
      if (before) await this.removeStored(before.name, before.id);
      this.opts.log.info(
        { lookup: name, rows: rec.rows, bytes: rec.bytes, by },
        before ? 'lookup table replaced' : 'lookup table created',
      );
      return { lookup: lookupInfo(rec), created: !before };
    } catch (e) {
      // unreachable control plane: the write may have landed after all, so its files stay (a restart sweeps strays)
      if (!(isSvcError(e) && e.code === 'control_unavailable')) await this.removeVersion(name, id);
      throw e;
    }
  }

  async delete(name: string): Promise<void> {
    this.get(name);
    const removed = await this.opts.control.mutate((doc) => {
      const list = doc.lookups ?? [];
      const i = list.findIndex((r) => r.name === name);
      if (i < 0) throw new SvcError('not_found', `no lookup table named "${name}"`);
      return list.splice(i, 1)[0];
    });
    await this.removeStored(removed.name, removed.id);
    this.opts.log.info({ lookup: name }, 'lookup table deleted');
  }

  /** The CSV as it was uploaded. */
  async csv(name: string): Promise<{ lookup: LookupInfo; data: Buffer }> {
    const rec = this.get(name);
    const local = await readFile(localPath(this.opts.dataDir, rec.name, rec.id, 'csv')).catch(absent);
    if (local) return { lookup: lookupInfo(rec), data: local };
    if (!this.opts.store) throw new Error(`BUG: the CSV of lookup table "${name}" is missing from the data dir`);
    const got = await unavailableAsSvcError(() => this.opts.store!.get(storeKey(rec.name, rec.id, 'csv')));
    // replaced between our read of the record and of the object: the caller asks again
    if (!got)
      throw new SvcError('storage_unavailable', `lookup table "${name}" changed while it was read; try again`, {
        retryAfterSecs: 1,
      });
    return { lookup: lookupInfo(rec), data: got.data };
  }

  /** The first `rows` rows, empty cells as null (what a search gets from them). */
  async preview(
    name: string,
    rows: number,
  ): Promise<{ lookup: LookupInfo; columns: string[]; rows: (string | null)[][] }> {
    const { lookup, data } = await this.csv(name);
    return { lookup, columns: lookup.columns, rows: await firstRows(data, rows) };
  }

  /** The version's Parquet copy and CSV in the data dir (durable) and, with SVC_STORE, in the store. */
  private async writeVersion(name: string, id: string, csv: Buffer, by: string): Promise<LookupRecord> {
    const path = (f: LookupFile) => localPath(this.opts.dataDir, name, id, f);
    await mkdir(dirname(path('csv')), { recursive: true });
    const { columns, rows } = await writeLookupParquet(csv, path('parquet'));
    await rename(await writeTemp(path('csv'), csv), path('csv'));
    await syncDir(dirname(path('csv')));
    const store = this.opts.store;
    if (store) {
      await unavailableAsSvcError(async () => {
        await store.upload(storeKey(name, id, 'parquet'), path('parquet'));
        await store.put(storeKey(name, id, 'csv'), csv);
      });
    }
    return {
      name,
      id,
      columns,
      rows,
      bytes: csv.length,
      updatedAt: new Date(this.opts.clock.now()).toISOString(),
      updatedBy: by,
    };
  }

  private async removeVersion(name: string, id: string): Promise<void> {
    for (const f of ['parquet', 'csv'] as const)
      await unlink(localPath(this.opts.dataDir, name, id, f)).catch(() => undefined);
    await this.removeStored(name, id);
  }

  /** Best effort: an object left behind costs space, never correctness (no record names it). */
  private async removeStored(name: string, id: string): Promise<void> {
    if (!this.opts.store) return;
    for (const f of ['parquet', 'csv'] as const) {
      await this.opts.store
        .delete(storeKey(name, id, f))
        .catch((err: unknown) =>
          this.opts.log.warn({ err, lookup: name }, 'cannot delete a replaced lookup version from the shared store'),
        );
    }
  }
}

async function unavailableAsSvcError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StoreUnavailable)
      throw new SvcError('storage_unavailable', `cannot reach the shared store: ${e.message}`, {
        retryAfterSecs: 5,
        cause: e,
      });
    throw e;
  }
}
