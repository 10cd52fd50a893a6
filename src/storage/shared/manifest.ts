import { z } from 'zod';
import { StoreConflict, StoreUnavailable, type ObjectStore } from '../../shared-store/object-store.js';
import { manifestKey } from './layout.js';

// A node's manifest (`nodes/<node>/manifest.json`): the blocks it published, with what a reader
// needs to find and check them (keys, size, SHA-256) and what retention needs (env, time range),
// and the objects it took out, kept until the grace period has passed (readers mid-sync may still
// fetch them). Written only with conditional writes: the owner publishes, the retention sweeper
// takes expired entries out, and whoever loses re-reads and applies its change again.

/** A published block. */
export interface ManifestEntry {
  name: string;
  env: string;
  index: string;
  day: string;
  /** The Parquet object and its sidecar. */
  key: string;
  sidecarKey: string;
  /** Bytes and SHA-256 (hex) of the Parquet object: a download is checked against both. */
  size: number;
  sha256: string;
  count: number;
  minUs: number;
  maxUs: number;
}

/** A block taken out of the manifest (merged away or expired): its objects go once `at` + grace has passed. */
export interface RemovedEntry {
  name: string;
  key: string;
  sidecarKey: string;
  at: number;
}

export interface Manifest {
  v: 1;
  node: string;
  /** Wall-clock ms of the last write. */
  updatedAt: number;
  blocks: ManifestEntry[];
  removed: RemovedEntry[];
}

/** A manifest with the version it was read or written at; version undefined: there is none yet. */
export interface StoredManifest {
  manifest: Manifest;
  version: string | undefined;
}

const int = z.number().int();
const schema = z.object({
  v: z.literal(1),
  node: z.string().min(1),
  updatedAt: z.number(),
  blocks: z.array(
    z.object({
      name: z.string().min(1),
      env: z.string().min(1),
      index: z.string().min(1),
      day: z.string(),
      key: z.string().min(1),
      sidecarKey: z.string().min(1),
      size: int.nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      count: int.nonnegative(),
      minUs: int,
      maxUs: int,
    }),
  ),
  removed: z.array(z.object({ name: z.string(), key: z.string(), sidecarKey: z.string(), at: z.number() })),
});

export function emptyManifest(node: string): Manifest {
  return { v: 1, node, updatedAt: 0, blocks: [], removed: [] };
}

export function parseManifest(data: Buffer, key: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(data.toString('utf8'));
  } catch (e) {
    throw new Error(`cannot parse manifest ${key}: ${(e as Error).message}`, { cause: e });
  }
  const r = schema.safeParse(json);
  if (!r.success)
    throw new Error(`cannot parse manifest ${key}: ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`);
  return r.data;
}

/**
 * Reads a node's manifest. `mustExist`: the caller has seen it before, and a manifest is never
 * deleted, so its absence means the store is not what it was (a directory store whose mount went
 * away looks empty): that is StoreUnavailable, never "no blocks" (which would drop them).
 */
export async function readManifest(store: ObjectStore, node: string, mustExist = false): Promise<StoredManifest> {
  const key = manifestKey(node);
  const got = await store.get(key);
  if (!got) {
    if (mustExist) throw new StoreUnavailable(store.location, `${key} is gone`);
    return { manifest: emptyManifest(node), version: undefined };
  }
  return { manifest: parseManifest(got.data, key), version: got.version };
}

/** Writes `next` if the manifest is still at `base`'s version; throws StoreConflict otherwise. Answers what is stored now. */
export async function writeManifest(store: ObjectStore, base: StoredManifest, next: Manifest): Promise<StoredManifest> {
  const body = Buffer.from(JSON.stringify(next));
  const version = await store.put(
    manifestKey(next.node),
    body,
    base.version === undefined ? { ifAbsent: true } : { ifVersion: base.version },
  );
  return { manifest: next, version };
}

/**
 * Applies `change` to a node's manifest with a conditional write; when someone else wrote in
 * between (the owner publishing, another sweeper), re-reads and applies it again. `change` answers
 * the new manifest, or undefined when nothing is to change. Answers what is stored now and
 * whether this call changed it.
 */
export async function updateManifest(
  store: ObjectStore,
  node: string,
  change: (m: Manifest) => Manifest | undefined | Promise<Manifest | undefined>,
  opts: { mustExist?: boolean; tries?: number } = {},
): Promise<{ stored: StoredManifest; changed: boolean }> {
  const tries = opts.tries ?? 8;
  for (let i = 0; ; i++) {
    const cur = await readManifest(store, node, opts.mustExist);
    const next = await change(cur.manifest);
    if (!next) return { stored: cur, changed: false };
    try {
      return { stored: await writeManifest(store, cur, { ...next, updatedAt: Date.now() }), changed: true };
    } catch (e) {
      if (!(e instanceof StoreConflict) || i + 1 >= tries) throw e;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80 * (i + 1)));
    }
  }
}

/** The objects of removed entries whose grace period is over, deleted; answers the entries left. */
export async function purgeRemoved(
  store: ObjectStore,
  removed: RemovedEntry[],
  nowMs: number,
  graceMs: number,
): Promise<RemovedEntry[]> {
  const left: RemovedEntry[] = [];
  for (const r of removed) {
    if (nowMs - r.at < graceMs) {
      left.push(r);
      continue;
    }
    // sidecar first: a block without its sidecar is never read by a new reader
    await store.delete(r.sidecarKey);
    await store.delete(r.key);
  }
  return left;
}
