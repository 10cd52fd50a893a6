import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import { SvcError } from '../errors/svc-error.js';
import { StoreConflict, StoreUnavailable } from '../shared-store/object-store.js';
import type { ControlBlobStore } from './blob-store.js';
import { openDoc, sealDoc } from './envelope.js';
import { ControlError } from './errors.js';
import { emptyDoc, type ControlDoc } from './records.js';
import type { ControlReader, EnvRecord, Settings } from './types.js';

/**
 * How many times `mutate` applies a change whose write keeps losing to other nodes before it gives
 * up. Each loss means another node's write landed, so the cluster as a whole makes progress.
 */
export const MAX_WRITE_ATTEMPTS = 12;

export interface ControlStoreOptions {
  blob: ControlBlobStore;
  /** AES-256-GCM key; undefined when SVC_CONTROL_ENCRYPTION=off. */
  encryptionKey: Buffer | undefined;
  clock: Clock;
  log: Logger;
  /** Applied to the very first document of a new control plane (what the cluster's nodes must share). */
  init?: (draft: ControlDoc) => void;
}

/**
 * The control plane: one JSON document held in memory, persisted (encrypted) through a
 * ControlBlobStore. Reads are synchronous and see the latest document this node knows.
 * Writes go through `mutate`, which runs one at a time on this node and is optimistic across nodes:
 * it re-reads the blob if it changed, applies the change to a copy, bumps the version and writes
 * it on condition that the blob is still what it read; when another node wrote first, it re-reads
 * and applies the change again (up to MAX_WRITE_ATTEMPTS times). A change that throws is discarded:
 * nothing is stored. So a change must be a function of the draft it is given, and may run twice.
 */
export class ControlStore implements ControlReader {
  private current: ControlDoc;
  /** The blob's version (store-given, opaque) that `current` was read from or written as. */
  private stored: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private pollFailing = false;
  private readonly listeners: ((doc: ControlDoc) => void)[] = [];

  private constructor(
    private readonly opts: ControlStoreOptions,
    doc: ControlDoc,
    stored: string | undefined,
  ) {
    this.current = deepFreeze(doc);
    this.stored = stored;
  }

  /**
   * Opens the stored document, or creates the first one (`init` applied) when there is none. A wrong
   * key, a corrupt blob or a plain document in a shared store read with encryption on throws
   * ControlError and nothing is written. A lone node's plain document read with encryption on is
   * re-written encrypted.
   */
  static async open(opts: ControlStoreOptions): Promise<ControlStore> {
    let stored = await opts.blob.read();
    if (!stored) {
      const created = await ControlStore.createFirst(opts);
      if (created) return created;
      // another node created it between our read and our write: open theirs
      stored = await opts.blob.read();
      if (!stored)
        throw new ControlError(
          `the control plane at ${opts.blob.location} appeared and vanished while starting; start again`,
        );
    }
    const { doc, wasPlain } = openDoc(stored.data, opts.encryptionKey, opts.blob.location);
    const store = new ControlStore(opts, doc, stored.version);
    if (wasPlain && opts.encryptionKey) {
      // the other nodes run with encryption off: encrypting would lock them out
      if (opts.blob.shared) throw new ControlError(plainInSharedStore(opts.blob.location));
      opts.log.warn({ location: opts.blob.location }, 'control plane was stored in clear text; encrypting it now');
      await store.mutate(() => undefined);
    }
    return store;
  }

  /** Writes version 1 if there is no document yet; undefined when another node was first. */
  private static async createFirst(opts: ControlStoreOptions): Promise<ControlStore | undefined> {
    const doc = emptyDoc(new Date(opts.clock.now()).toISOString());
    opts.init?.(doc);
    doc.version = 1;
    try {
      const stored = await opts.blob.write(sealDoc(doc, opts.encryptionKey), undefined);
      return new ControlStore(opts, doc, stored);
    } catch (e) {
      if (e instanceof StoreConflict) return undefined;
      throw e;
    }
  }

  /** The current document. Callers must not modify it; use mutate. */
  get doc(): Readonly<ControlDoc> {
    return this.current;
  }

  get version(): number {
    return this.current.version;
  }

  /**
   * Applies `change` to a copy of the latest document and stores it; resolves with change's result
   * (of the application that was stored). Rejects with what `change` threw, or with SvcError
   * `control_unavailable` when the store cannot be reached or other nodes kept winning the write.
   */
  mutate<T>(change: (draft: ControlDoc) => T): Promise<T> {
    const run = this.queue.then(() => unavailableAsSvcError(() => this.write(change)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write<T>(change: (draft: ControlDoc) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      // after a lost write the blob changed for sure: read it without asking for its version first
      await this.reloadIfChangedNow(attempt > 1);
      const draft = structuredClone<ControlDoc>(this.current);
      const result = change(draft);
      draft.version = this.current.version + 1;
      draft.updatedAt = new Date(this.opts.clock.now()).toISOString();
      try {
        this.stored = await this.opts.blob.write(sealDoc(draft, this.opts.encryptionKey), this.stored);
      } catch (e) {
        if (!(e instanceof StoreConflict)) throw e;
        if (attempt >= MAX_WRITE_ATTEMPTS) {
          throw new SvcError(
            'control_unavailable',
            `cannot store the change: other nodes changed the control plane ${attempt} times meanwhile; try again`,
            { retryAfterSecs: 1, cause: e },
          );
        }
        this.opts.log.debug({ attempt }, 'another node changed the control plane first; applying the change again');
        await sleep(Math.random() * Math.min(250, 10 * 2 ** attempt));
        continue;
      }
      this.swap(draft);
      return result;
    }
  }

  /** Re-reads the blob if another writer replaced it. Serialised with mutate. */
  reloadIfChanged(): Promise<boolean> {
    const run = this.queue.then(() => unavailableAsSvcError(() => this.reloadIfChangedNow()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reloadIfChangedNow(force = false): Promise<boolean> {
    if (!force && (await this.opts.blob.version()) === this.stored) return false;
    const got = await this.opts.blob.read();
    if (!got) throw new ControlError(`the control plane at ${this.opts.blob.location} disappeared`);
    const { doc } = openDoc(got.data, this.opts.encryptionKey, this.opts.blob.location);
    this.stored = got.version;
    if (doc.version === this.current.version && doc.updatedAt === this.current.updatedAt) return false;
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

  /**
   * Checks the blob's version every `intervalMs` (a stat or a HEAD) and reloads when another node
   * changed it. The next check is scheduled when one ends, so a slow store never piles them up.
   */
  watch(intervalMs: number): void {
    const next = () => {
      if (this.closed) return;
      this.timer = setTimeout(() => void this.poll().finally(next), intervalMs);
      this.timer.unref();
    };
    next();
  }

  private async poll(): Promise<void> {
    try {
      await this.reloadIfChanged();
      if (this.pollFailing) this.opts.log.info({ location: this.opts.blob.location }, 'control plane reachable again');
      this.pollFailing = false;
    } catch (e) {
      // once per outage, not once per poll
      if (!this.pollFailing) this.opts.log.error({ err: e }, 'cannot reload the control plane');
      this.pollFailing = true;
    }
  }

  /** Stops watching and waits for pending writes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
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

function plainInSharedStore(location: string): string {
  return (
    `the control plane at ${location} is stored in clear text (the nodes that wrote it run with SVC_CONTROL_ENCRYPTION=off) ` +
    'but this node has SVC_CONTROL_ENCRYPTION=on: every node needs the same SVC_CONTROL_ENCRYPTION setting; nothing was written'
  );
}

/** A store that cannot be reached fails the call with 503 control_unavailable, never silently. */
async function unavailableAsSvcError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StoreUnavailable)
      throw new SvcError('control_unavailable', `cannot reach the control plane: ${e.message}`, {
        retryAfterSecs: 5,
        cause: e,
      });
    throw e;
  }
}
