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

/** A histogram, optionally stacked by a field (`by`): the `series` most common values, then OTHER and NULL. */
export interface HistogramRequest extends SearchRequest {
  /** About how many buckets (default 60, at most 1000). */
  buckets?: number;
  /** A field name as written in a pipe's field list (`host`, `"user name"`). */
  by?: string;
  /** Most common values of `by` that get their own series (default 5, at most 20). */
  series?: number;
}

export interface HistogramResult {
  /** Bucket width in seconds. */
  spanSecs: number;
  /**
   * With `by`: the series names, most common value first, then `OTHER` (every other value) and
   * `NULL` (events without the field), each only when it counts events. Every bucket then has
   * `series` (name → count, zeros left out) summing to its `count`.
   */
  series?: string[];
  buckets: { time: string; count: number; series?: Record<string, number> }[];
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
  histogram(principal: Principal, req: HistogramRequest): Promise<HistogramResult>;
  fields(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult>;
}
