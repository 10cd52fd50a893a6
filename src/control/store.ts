import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { ControlBlobStore } from './blob-store.js';
import { openDoc, sealDoc } from './envelope.js';
import { ControlError } from './errors.js';
import { emptyDoc, type ControlDoc } from './records.js';
import type { ControlReader, EnvRecord, Settings } from './types.js';

export interface ControlStoreOptions {
  blob: ControlBlobStore;
  /** AES-256-GCM key; undefined when SVC_CONTROL_ENCRYPTION=off. */
  encryptionKey: Buffer | undefined;
  clock: Clock;
  log: Logger;
}

/**
 * The control plane: one JSON document held in memory, persisted (encrypted) through a
 * ControlBlobStore. Reads are synchronous and see the latest document this node knows.
 * Writes go through `mutate`, which runs one at a time: it reloads if another node changed the
 * blob, applies the change to a copy, bumps the version and replaces the blob atomically. A change
 * that throws is discarded: nothing is stored.
 */
export class ControlStore implements ControlReader {
  private current: ControlDoc;
  private stamp: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: ((doc: ControlDoc) => void)[] = [];

  private constructor(private readonly opts: ControlStoreOptions, doc: ControlDoc, stamp: string | undefined) {
    this.current = deepFreeze(doc);
    this.stamp = stamp;
  }

  /**
   * Opens the stored document, or creates an empty one. A wrong key or a corrupt blob throws
   * ControlError and the blob is not written. A plain document read with encryption on is
   * re-written encrypted.
   */
  static async open(opts: ControlStoreOptions): Promise<ControlStore> {
    const raw = await opts.blob.read();
    if (!raw) {
      const store = new ControlStore(opts, emptyDoc(new Date(opts.clock.now()).toISOString()), undefined);
      await store.mutate(() => undefined);
      return store;
    }
    const { doc, wasPlain } = openDoc(raw, opts.encryptionKey, opts.blob.location);
    const store = new ControlStore(opts, doc, await opts.blob.stamp());
    if (wasPlain && opts.encryptionKey) {
      opts.log.warn({ location: opts.blob.location }, 'control plane was stored in clear text; encrypting it now');
      await store.mutate(() => undefined);
    }
    return store;
  }

  /** The current document. Callers must not modify it; use mutate. */
  get doc(): Readonly<ControlDoc> {
    return this.current;
  }

  get version(): number {
    return this.current.version;
  }

  /** Applies `change` to a copy of the latest document and stores it; resolves with change's result. */
  mutate<T>(change: (draft: ControlDoc) => T): Promise<T> {
    const run = this.queue.then(async () => {
      await this.reloadIfChangedNow();
      const draft = structuredClone(this.current);
      const result = change(draft);
      draft.version = this.current.version + 1;
      draft.updatedAt = new Date(this.opts.clock.now()).toISOString();
      await this.opts.blob.write(sealDoc(draft, this.opts.encryptionKey));
      this.stamp = await this.opts.blob.stamp();
      this.swap(draft);
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Re-reads the blob if another writer replaced it. Serialised with mutate. */
  reloadIfChanged(): Promise<boolean> {
    const run = this.queue.then(() => this.reloadIfChangedNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reloadIfChangedNow(): Promise<boolean> {
    const stamp = await this.opts.blob.stamp();
    if (stamp === this.stamp) return false;
    const raw = await this.opts.blob.read();
    if (!raw) throw new ControlError(`the control plane at ${this.opts.blob.location} disappeared`);
    const { doc } = openDoc(raw, this.opts.encryptionKey, this.opts.blob.location);
    this.stamp = stamp;
    if (doc.version === this.current.version) return false;
    this.swap(doc);
    this.opts.log.info({ version: doc.version }, 'control plane reloaded');
    return true;
  }

  private swap(doc: ControlDoc): void {
    // frozen: a reader that modifies a record by mistake fails loudly instead of skipping the disk
    this.current = deepFreeze(doc);
    for (const l of this.listeners) l(doc);
  }

  /** Called after every change of the document (own writes and reloads). */
  onChange(listener: (doc: ControlDoc) => void): void {
    this.listeners.push(listener);
  }

  /** Polls the blob for changes by other nodes every `intervalMs`. */
  watch(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.reloadIfChanged().catch((e: unknown) => this.opts.log.error({ err: e }, 'cannot reload the control plane'));
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops watching and waits for pending writes. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue;
  }

  // --- ControlReader ---

  env(name: string): EnvRecord | undefined {
    return this.current.envs.find((e) => e.name === name);
  }

  envs(): EnvRecord[] {
    return [...this.current.envs];
  }

  settings(): Settings {
    return { ...this.current.settings };
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
