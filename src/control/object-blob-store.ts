import type { ObjectStore } from '../shared-store/object-store.js';
import type { ControlBlobStore, StoredBlob } from './blob-store.js';

/** The key of the control plane in the shared store (SVC_STORE). */
export const CONTROL_KEY = 'control/control.json';
/** Where svc kept it before, in a shared directory: read while CONTROL_KEY is absent, never written. */
export const LEGACY_CONTROL_KEY = 'control.json';

/** Marks a version of the legacy object: the first write creates CONTROL_KEY instead of replacing it. */
const LEGACY = 'legacy:';

/**
 * The control plane as one object of the shared store, for several nodes. A write is a conditional
 * put the store enforces: `ifVersion` of what was read, `ifAbsent` for the very first document, so a
 * node that lost a race gets StoreConflict and writes nothing (ControlStore re-reads and re-applies).
 *
 * A store whose control plane still sits at LEGACY_CONTROL_KEY is read from there (start-up checks
 * run on it as on any other) until the first write, which creates CONTROL_KEY if absent; the legacy
 * object is left as it was.
 */
export class ObjectBlobStore implements ControlBlobStore {
  readonly location: string;
  readonly shared = true;

  constructor(private readonly store: ObjectStore) {
    this.location = `${store.location.replace(/\/+$/, '')}/${CONTROL_KEY}`;
  }

  async read(): Promise<StoredBlob | undefined> {
    const got = await this.store.get(CONTROL_KEY);
    if (got) return got;
    const legacy = await this.store.get(LEGACY_CONTROL_KEY);
    return legacy && { data: legacy.data, version: LEGACY + legacy.version };
  }

  write(data: Buffer, expected: string | undefined): Promise<string> {
    const cond =
      expected === undefined || expected.startsWith(LEGACY) ? { ifAbsent: true as const } : { ifVersion: expected };
    return this.store.put(CONTROL_KEY, data, cond);
  }

  async version(): Promise<string | undefined> {
    const head = await this.store.head(CONTROL_KEY);
    if (head) return head.version;
    const legacy = await this.store.head(LEGACY_CONTROL_KEY);
    return legacy && LEGACY + legacy.version;
  }
}
