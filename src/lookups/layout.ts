import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * Where a lookup table's files are (docs/lookups.md): each upload is a new version `id`, written
 * once and never changed, as `<name>/<id>.csv` (what the admin sent, for download and preview) and
 * `<name>/<id>.parquet` (what queries join against), under `lookups/` in the data dir and, with
 * SVC_STORE, under the key prefix `lookups/` of the shared store. Names are checked
 * (control/envs.ts checkName), so they are safe as one path segment.
 */
export type LookupFile = 'csv' | 'parquet';

export function newVersionId(): string {
  return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

export function lookupsDir(dataDir: string): string {
  return join(dataDir, 'lookups');
}

export function localPath(dataDir: string, name: string, id: string, file: LookupFile): string {
  return join(lookupsDir(dataDir), name, `${id}.${file}`);
}

export function storeKey(name: string, id: string, file: LookupFile): string {
  return `lookups/${name}/${id}.${file}`;
}
