import type { Block } from '../blocks/block-files.js';

/**
 * The engine's own blocks, as the uploader sees them. The uploader is the only code that decides
 * which of them are published; the engine keeps writing them (seal, merge) as it does alone.
 */
export interface LocalBlocks {
  /** The data dir's blocks directory (a block restored from the store is written under it). */
  readonly root: string;
  /** The committed local blocks now (a snapshot). */
  list(): Block[];
  /** Takes blocks out of the catalog and deletes their files once no scan reads them; runs in the engine's job order (never during a merge). */
  drop(blocks: Block[]): Promise<void>;
  /** Adds a block restored from the store to the catalog. */
  adopt(b: Block): void;
}

/** The shared store as `GET /api/health` shows it. */
export interface StoreHealthInfo {
  available: boolean;
  /** ISO time the outage began, while the store does not answer. */
  downSince?: string;
  error?: string;
  /** Sealed blocks waiting on local disk to be published. */
  unpublishedBlocks: number;
  lastSyncAt: string | null;
}

/** One node of the cluster, as `GET /api/admin/nodes` lists it. */
export interface NodeInfo {
  id: string;
  /** The node answering the request. */
  self: boolean;
  retired: boolean;
  retiredAt: string | null;
  /** running: reported within three sync intervals; stopped: stopped cleanly, or silent longer than that. */
  state: 'running' | 'stopped';
  /** When the node last wrote its status (every sync). */
  lastSeenAt: string | null;
  /** When it last read the other nodes' manifests, and how long ago that was (its view lags by this much). */
  lastSyncAt: string | null;
  lagSecs: number | null;
  /** Blocks in its manifest now (the retention sweep may have changed it since the node last wrote). */
  publishedBlocks: number;
  publishedBytes: number;
  publishedEvents: number;
  /** From its status: sealed blocks not yet published, its block cache, whether it reached the store. */
  unpublishedBlocks: number | null;
  cacheBytes: number | null;
  cacheMaxBytes: number | null;
  cacheHitRate: number | null;
  storeAvailable: boolean | null;
}

/** The cluster operations the HTTP edge offers (present only with SVC_STORE). */
export interface ClusterHandle {
  health(): StoreHealthInfo;
  nodes(): Promise<NodeInfo[]>;
  /** Marks a node retired (its blocks stay readable and under retention); refuses a node that still reports. */
  retire(id: string): Promise<NodeInfo>;
}
