import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { StoreConflict, StoreUnavailable, type ObjectStore } from '../../shared-store/object-store.js';
import { blockDir, publishBlock, type Block } from '../blocks/block-files.js';
import { parseSidecar } from '../blocks/sidecar.js';
import { fileChecksum } from './checksum.js';
import { blockKeys, manifestKey } from './layout.js';
import {
  purgeRemoved,
  readManifest,
  writeManifest,
  type Manifest,
  type ManifestEntry,
  type StoredManifest,
} from './manifest.js';
import type { StoreHealth } from './store-health.js';
import type { LocalBlocks } from './types.js';

export interface UploaderOptions {
  store: ObjectStore;
  node: string;
  local: LocalBlocks;
  health: StoreHealth;
  /** Objects taken out of the manifest are deleted this long after (readers mid-sync may still fetch them). */
  graceMs: number;
  log: Logger;
  /** After every manifest write: published blocks may now be merged. */
  onPublished: () => void;
}

/** What one round changes: blocks to upload, entries a merged block replaces, entries to restore. */
interface RoundPlan {
  upload: Block[];
  swapOut: ManifestEntry[];
  restore: ManifestEntry[];
}

const MAX_BACKOFF_MS = 30_000;

/**
 * Publishes this node's blocks: uploads each sealed or merged block (Parquet, then sidecar), then
 * publishes it in the node's manifest with one conditional write, which also takes out the blocks
 * a merge replaced (the swap readers see at once, never half). Rounds run one at a time, after a
 * seal or merge and on every sync tick; a round reconciles the local blocks with the manifest, so
 * the first one after a start publishes what a crash left unpublished. A store outage leaves the
 * blocks on local disk and retries with backoff.
 *
 * Rules a round keeps (docs/storage.md, "Several nodes"):
 * - local and not in the manifest (nor taken out of it): upload and publish;
 * - in the manifest, not local, replaced by a local merged block: out, in the same write;
 * - in the manifest, not local, replaced by nothing (a lost data dir under the same node id):
 *   restored from the store into the data dir;
 * - taken out of the manifest by someone else (the retention sweeper): local files dropped.
 * The engine merges only published blocks, so one round sees a whole merge or none of it.
 */
export class Uploader {
  private known: StoredManifest | undefined;
  private published = new Set<string>();
  /** Uploaded, not yet in the manifest: a conflict or an outage does not upload them again. */
  private readonly uploaded = new Map<string, ManifestEntry>();
  /** Entries whose restore failed for a reason other than an outage: not tried again by this process. */
  private readonly unrestorable = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private queued = false;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: UploaderOptions) {}

  /** Whether a block is in the manifest as last read or written (the engine merges only those). */
  isPublished(name: string): boolean {
    return this.published.has(name);
  }

  /** The manifest as last read or written. */
  manifest(): Manifest | undefined {
    return this.known?.manifest;
  }

  /** Local blocks not yet published, their bytes and the age of the oldest. */
  unpublished(): { blocks: number; bytes: number; oldestMs: number } {
    const waiting = this.o.local.list().filter((b) => !this.published.has(b.meta.name));
    const oldest = Math.min(...waiting.map((b) => b.meta.createdAt));
    return {
      blocks: waiting.length,
      bytes: waiting.reduce((n, b) => n + b.meta.bytes, 0),
      oldestMs: waiting.length ? Date.now() - oldest : 0,
    };
  }

  /** Runs a round soon. Rounds never overlap; kicks made while one is queued share it. Never rejects. */
  kick(): Promise<void> {
    if (this.queued || this.closed) return this.queue;
    this.queued = true;
    this.queue = this.queue.then(async () => {
      this.queued = false;
      if (!this.closed) await this.runRound();
    });
    return this.queue;
  }

  /** Stops retrying; waits for the round in progress. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.queue;
  }

  private async runRound(): Promise<void> {
    clearTimeout(this.retry);
    try {
      await this.round();
      this.failures = 0;
      this.o.health.ok();
    } catch (err) {
      this.failures++;
      if (err instanceof StoreUnavailable) this.o.health.failed(err, 'publishing blocks');
      else this.o.log.error({ err }, 'cannot publish blocks to the shared store');
      // backoff: 1, 2, 4 … 30 s, with jitter so nodes that lost the store together do not return together
      const wait = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.failures - 1)) * (0.75 + Math.random() / 2);
      this.retry = setTimeout(() => void this.kick(), wait);
      this.retry.unref();
    }
  }

  private async round(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const cur = await this.read();
      await this.dropTakenOut(cur);
      const plan = this.plan(cur.manifest);
      for (const e of plan.restore) await this.restore(e);
      for (const b of plan.upload) await this.upload(b);
      const removed = await purgeRemoved(this.o.store, cur.manifest.removed, Date.now(), this.o.graceMs);
      const next = this.compose(cur.manifest, plan, removed);
      if (!next) return this.accept(cur);
      try {
        this.accept(await writeManifest(this.o.store, cur, next));
      } catch (e) {
        // the sweeper wrote in between: read again and redo the change on what it left
        if (e instanceof StoreConflict && attempt < 8) continue;
        throw e;
      }
      this.o.onPublished();
      return;
    }
  }

  /** The manifest now: the one we know when its version has not changed (a head), else read again. */
  private async read(): Promise<StoredManifest> {
    const known = this.known;
    if (known?.version !== undefined) {
      const head = await this.o.store.head(manifestKey(this.o.node));
      if (!head) throw new StoreUnavailable(this.o.store.location, `${manifestKey(this.o.node)} is gone`);
      if (head.version === known.version) return known;
    }
    return readManifest(this.o.store, this.o.node, known?.version !== undefined);
  }

  /** Blocks the sweeper took out (listed as removed, or published before and gone now): their local files go. */
  private async dropTakenOut(cur: StoredManifest): Promise<void> {
    const listed = new Set(cur.manifest.blocks.map((e) => e.name));
    const out = new Set(cur.manifest.removed.map((r) => r.name));
    for (const n of this.published) if (!listed.has(n)) out.add(n);
    // at once, so a merge of them that finishes meanwhile is thrown away (the engine merges only published blocks)
    for (const n of out) this.published.delete(n);
    const doomed = this.o.local.list().filter((b) => out.has(b.meta.name));
    if (doomed.length === 0) return;
    this.o.log.info(
      { blocks: doomed.map((b) => b.meta.name) },
      "blocks left this node's manifest: local files dropped",
    );
    await this.o.local.drop(doomed);
  }

  private plan(m: Manifest): RoundPlan {
    const local = this.o.local.list();
    const localNames = new Set(local.map((b) => b.meta.name));
    const listed = new Set(m.blocks.map((e) => e.name));
    const out = new Set(m.removed.map((r) => r.name));
    const upload = local.filter((b) => !listed.has(b.meta.name) && !out.has(b.meta.name));
    const replaced = new Set(upload.flatMap((b) => b.meta.replaces));
    const missing = m.blocks.filter((e) => !localNames.has(e.name));
    const restore = missing.filter((e) => !replaced.has(e.name) && !this.unrestorable.has(e.name));
    return { upload, swapOut: missing.filter((e) => replaced.has(e.name)), restore };
  }

  /** The manifest after the round, or undefined when nothing changes. */
  private compose(m: Manifest, plan: RoundPlan, removed: Manifest['removed']): Manifest | undefined {
    if (plan.upload.length === 0 && plan.swapOut.length === 0 && removed.length === m.removed.length) return undefined;
    const out = new Set(plan.swapOut.map((e) => e.name));
    const at = Date.now();
    return {
      ...m,
      blocks: [...m.blocks.filter((e) => !out.has(e.name)), ...plan.upload.map((b) => this.uploaded.get(b.meta.name)!)],
      removed: [...removed, ...plan.swapOut.map((e) => ({ name: e.name, key: e.key, sidecarKey: e.sidecarKey, at }))],
    };
  }

  private accept(stored: StoredManifest): void {
    this.known = stored;
    this.published = new Set(stored.manifest.blocks.map((e) => e.name));
    for (const n of this.published) this.uploaded.delete(n);
  }

  /** Parquet first, then the sidecar: a reader that finds the sidecar finds the data. */
  private async upload(b: Block): Promise<void> {
    if (this.uploaded.has(b.meta.name)) return;
    const { key, sidecarKey } = blockKeys(this.o.node, b.meta);
    const sum = await fileChecksum(b.path);
    const up = await this.o.store.upload(key, b.path);
    if (up.size !== sum.size)
      throw new StoreUnavailable(this.o.store.location, `${key}: stored ${up.size} bytes of ${sum.size}`);
    await this.o.store.upload(sidecarKey, b.sidecar);
    const { name, env, index, day, count, minUs, maxUs } = b.meta;
    this.uploaded.set(name, {
      name,
      env,
      index,
      day,
      key,
      sidecarKey,
      size: sum.size,
      sha256: sum.sha256,
      count,
      minUs,
      maxUs,
    });
  }

  /** A block the manifest lists but the data dir lacks: downloaded, checked, made a local block again. */
  private async restore(e: ManifestEntry): Promise<void> {
    const dir = blockDir(this.o.local.root, e.env, e.index, e.day);
    mkdirSync(dir, { recursive: true });
    const final = join(dir, `${e.name}.parquet`);
    const tmp = `${final}.tmp`;
    try {
      await this.o.store.download(e.key, tmp);
      const got = await fileChecksum(tmp);
      if (got.size !== e.size || got.sha256 !== e.sha256) throw new Error(`${e.key} does not match its manifest entry`);
      const side = await this.o.store.get(e.sidecarKey);
      if (!side) throw new StoreUnavailable(this.o.store.location, `${e.sidecarKey} is missing`);
      this.o.local.adopt(publishBlock(tmp, final, parseSidecar(side.data.toString('utf8'))));
      this.o.log.warn(
        { block: e.name },
        "block listed in this node's manifest but missing from its data dir: restored from the shared store",
      );
    } catch (err) {
      if (err instanceof StoreUnavailable) throw err;
      // a damaged object must not stop publishing: the entry stays listed (other nodes may read it)
      this.unrestorable.add(e.name);
      this.o.log.error({ err, block: e.name }, "cannot restore a block of this node's manifest from the shared store");
    } finally {
      rmSync(tmp, { force: true });
    }
  }
}
