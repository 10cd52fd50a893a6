import { join } from 'node:path';
import { FileBlobStore, type ControlBlobStore, type StoredBlob } from '../control/blob-store.js';
import { StoreConflict, type ObjectStore } from '../shared-store/object-store.js';
import type { LastRun } from './types.js';

// The run state of monitors: which scheduled slot each took last, the groups firing, the last run.
// Apart from the control plane (it changes at every run, the definitions rarely): a file in the data
// dir, or one object of the shared store that the node holding the monitors lease writes
// (docs/monitors.md, "Several nodes").

/** A group that met the condition at its last run. */
export interface FiringGroup {
  since: string;
  /** When a notification last went out for it (the cooldown counts from here). */
  notifiedAt: string;
  value: number;
}

export interface MonitorRunState {
  /**
   * The last scheduled time taken (ms since the epoch). A slot is taken, durably, before its run
   * starts, and never run again: a restart neither repeats a run nor loses count of one.
   */
  lastSlot?: number;
  /** The slot whose run is under way; still set at start-up, that run was cut short. */
  running?: number;
  lastRun?: LastRun;
  firing: Record<string, FiringGroup>;
}

interface StateDoc {
  v: 1;
  monitors: Record<string, MonitorRunState>;
}

/** The state object in the shared store. */
export const STATE_KEY = 'monitors/state.json';

/** One object of the shared store as a versioned blob (conditional writes enforced by the store). */
class StoreBlob implements ControlBlobStore {
  readonly shared = true;
  readonly location: string;
  constructor(
    private readonly store: ObjectStore,
    private readonly key: string,
  ) {
    this.location = `${store.location.replace(/\/+$/, '')}/${key}`;
  }
  read(): Promise<StoredBlob | undefined> {
    return this.store.get(this.key);
  }
  write(data: Buffer, expected: string | undefined): Promise<string> {
    return this.store.put(this.key, data, expected === undefined ? { ifAbsent: true } : { ifVersion: expected });
  }
  async version(): Promise<string | undefined> {
    return (await this.store.head(this.key))?.version;
  }
}

export function stateBlob(dataDir: string, store: ObjectStore | undefined): ControlBlobStore {
  return store ? new StoreBlob(store, STATE_KEY) : new FileBlobStore(join(dataDir, 'monitors', 'state.json'));
}

/**
 * The states, in memory, written through on every change (one write at a time). A write that finds
 * the blob changed (another node held the lease before us) reloads it and applies the change again.
 */
export class MonitorStates {
  private doc: StateDoc = { v: 1, monitors: {} };
  private version: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly blob: ControlBlobStore) {}

  /** Reads the stored states; `damaged` when they could not be read (then every monitor starts afresh). */
  async load(): Promise<'ok' | 'damaged'> {
    const got = await this.blob.read();
    this.version = got?.version;
    const doc = got ? parseDoc(got.data) : { v: 1 as const, monitors: {} };
    this.doc = doc ?? { v: 1, monitors: {} };
    return doc ? 'ok' : 'damaged';
  }

  get(id: string): MonitorRunState {
    return this.doc.monitors[id] ?? { firing: {} };
  }

  ids(): string[] {
    return Object.keys(this.doc.monitors);
  }

  /** Applies `change` to monitor `id`'s state (`undefined` deletes it) and stores it durably. */
  update(id: string, change: (s: MonitorRunState) => MonitorRunState | undefined): Promise<void> {
    const run = this.queue.then(() => this.write(id, change));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(id: string, change: (s: MonitorRunState) => MonitorRunState | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const next: StateDoc = structuredClone(this.doc);
      const s = change(structuredClone(this.get(id)));
      if (s) next.monitors[id] = s;
      else delete next.monitors[id];
      try {
        this.version = await this.blob.write(Buffer.from(JSON.stringify(next)), this.version);
        this.doc = next;
        return;
      } catch (e) {
        if (!(e instanceof StoreConflict) || attempt >= 5) throw e;
        await this.load();
      }
    }
  }
}

/** The stored states; undefined when damaged (the definitions are safe in the control plane). */
function parseDoc(data: Buffer): StateDoc | undefined {
  try {
    const d = JSON.parse(data.toString('utf8')) as StateDoc;
    if (d && d.v === 1 && d.monitors && typeof d.monitors === 'object') return d;
  } catch {
    // damaged: undefined below
  }
  return undefined;
}
