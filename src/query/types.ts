import type { Principal } from '../auth/principal.js';

/** A search as every caller (REST, MCP, UI, monitors) asks it. Times: RFC 3339, relative (-15m) or now. */
export interface SearchRequest {
  q: string;
  env?: string;
  index?: string;
  from?: string;
  to?: string;
  /** Max events returned (default 100, newest first). */
  limit?: number;
  /** Aborts the search (the caller went away); the service adds its own time limit. Not a request field. */
  signal?: AbortSignal;
}

/** An event as the API returns it (DESIGN 6). */
export interface EventJson {
  time: string;
  env: string;
  index: string;
  host: string;
  source: string;
  sourcetype: string;
  message: string;
  fields: Record<string, unknown>;
}

export interface SearchMeta {
  /** Events matching before head/limit. */
  matched: number;
  /** Events in the blocks and buffers that were read. */
  scanned: number;
  tookMs: number;
  /** Present when nothing matched: events the env/index hold outside the chosen time range. */
  hint?: { eventsOutsideRange: number; earliest?: string; latest?: string; message: string };
}

export interface SearchResult {
  events: EventJson[];
  /** Present when the pipeline produces a table (stats, timechart, top, table, ...). */
  columns?: string[];
  rows?: unknown[][];
  meta: SearchMeta;
}

export interface HistogramResult {
  /** Bucket width in seconds. */
  spanSecs: number;
  buckets: { time: string; count: number }[];
  meta: SearchMeta;
}

export interface FieldsResult {
  fields: { name: string; type: string; count: number; top: { value: unknown; count: number }[] }[];
  meta: SearchMeta;
}

/**
 * Search as a service: parses, narrows by RBAC (naming a forbidden env/index throws access_denied),
 * plans and runs on the store. Used by /api/search, /api/histogram, /api/fields and the MCP tools.
 * Safe to call concurrently.
 */
export interface SearchService {
  search(principal: Principal, req: SearchRequest): Promise<SearchResult>;
  histogram(principal: Principal, req: SearchRequest & { buckets?: number }): Promise<HistogramResult>;
  fields(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult>;
}
