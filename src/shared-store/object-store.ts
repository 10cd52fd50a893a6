/**
 * The store several nodes share (docs/decisions/0011-shared-store-several-nodes.md): a directory every node
 * mounts, or an S3 bucket. Keys are `/`-separated paths under the store's root (`control/control.json`,
 * `nodes/n1/manifest.json`, `blocks/n1/default/web/2026-11-23/n1-42.parquet`).
 *
 * Contract for every implementation:
 * - Safe to call concurrently from one process; several processes on several machines use one store.
 * - A `put` replaces an object atomically: readers see the old or the new bytes, never a mix.
 * - `version` is an opaque token that changes whenever an object's bytes change (an ETag, or the
 *   directory's inode, size and time); equal versions mean equal bytes.
 * - A conditional `put` is enforced by the store: `ifAbsent` fails when the key exists, `ifVersion`
 *   when the object is not at that version. Both throw StoreConflict and write nothing.
 * - Transient failures are retried inside with backoff; what still fails throws StoreUnavailable
 *   (the caller keeps its data locally and tries again later).
 */
export interface ObjectStore {
  /** `s3://bucket/prefix` or the directory, for messages. */
  readonly location: string;
  get(key: string): Promise<{ data: Buffer; version: string } | undefined>;
  head(key: string): Promise<StoreObject | undefined>;
  /** Writes bytes; answers the new version. */
  put(key: string, data: Buffer, cond?: PutCondition): Promise<string>;
  /** Streams a local file up (blocks are large); answers the stored object. */
  upload(key: string, path: string): Promise<StoreObject>;
  /** Streams an object down to `path`, atomically (a temp file renamed into place). */
  download(key: string, path: string): Promise<StoreObject>;
  /** Deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Lets go of connections (an S3 client); the store is not used after. */
  close?(): void;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): Promise<StoreObject[]>;
}

export interface StoreObject {
  key: string;
  size: number;
  version: string;
}

export type PutCondition = { ifAbsent: true } | { ifVersion: string };

/** A conditional write lost: the object exists, or changed since it was read. Re-read and retry. */
export class StoreConflict extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`conflict on ${key}: ${reason}`);
    this.name = 'StoreConflict';
  }
}

/** The store could not be reached or refused the request after retries. Nothing was changed. */
export class StoreUnavailable extends Error {
  constructor(
    readonly location: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`shared store ${location} unavailable: ${message}`, options);
    this.name = 'StoreUnavailable';
  }
}

/** Keys are relative paths of safe segments: no empty, `.` or `..` segment, no backslash. */
export function checkKey(key: string): string {
  const parts = key.split('/');
  if (
    key.length === 0 ||
    key.length > 1024 ||
    key.includes('\\') ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new Error(`BUG: bad store key ${JSON.stringify(key)}`);
  }
  return key;
}
