// Delete by query (docs/delete.md): what a request asks, and the record of a job's part on one node.

/** What to delete: one env (and index), a time range, a search filter. Times are epoch µs and ISO text. */
export interface DeleteSpec {
  env: string;
  /** null: every index of the env. */
  index: string | null;
  from: string;
  to: string;
  fromUs: number;
  toUs: number;
  query: string;
}

export type DeleteStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** Who asked: a user or an API key (never a secret). */
export interface AskedBy {
  id: string;
  name: string;
  kind: string;
}

/** A delete job as asked: written once by the node asked (with a store, for every node to run its part). */
export interface DeleteRequest {
  v: 1;
  id: string;
  spec: DeleteSpec;
  askedBy: AskedBy;
  /** The node asked. */
  node: string;
  createdAt: string;
  /** With a store: the nodes running when it was asked (the job is done when each has done its part). */
  nodes: string[];
}

/** One node's part of a job: its blocks rewritten and events deleted so far, kept through restarts. */
export interface DeletePart {
  v: 1;
  id: string;
  node: string;
  status: DeleteStatus;
  blocksDone: number;
  blocksTotal: number;
  deleted: number;
  /** A swap about to commit (set just before it): counted at start-up when the old block is gone. */
  inFlight?: { block: string; deleted: number };
  startedAt?: string;
  finishedAt?: string;
  error?: string;
}

/** The answer of GET /api/admin/delete/{id}: the request and its parts summed up. */
export interface DeleteJobView {
  id: string;
  status: DeleteStatus;
  env: string;
  index: string | null;
  from: string;
  to: string;
  query: string;
  askedBy: AskedBy;
  node: string;
  createdAt: string;
  progress: { blocksDone: number; blocksTotal: number };
  deletedEvents: number;
  error?: string;
  nodes: { node: string; status: DeleteStatus; blocksDone: number; blocksTotal: number; deletedEvents: number }[];
}
