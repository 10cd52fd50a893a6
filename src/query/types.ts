import type { Principal } from '../auth/principal.js';
import type { LogEvent } from '../events/event.js';

/** A search as every caller (REST, MCP, UI, monitors) asks it. Times: RFC 3339, relative (-15m) or now. */
export interface SearchRequest {
  q: string;
  env?: string;
  index?: string;
  from?: string;
  to?: string;
  /** Max events returned (default 100, newest first). */
  limit?: number;
  /**
   * 'allow': the caller confirms that this search may write (`outputlookup`); without it such a
   * search is refused (run-outputlookup.ts). Only GET|POST /api/search passes it on: a link, a
   * saved search, a monitor or a tool must never write on its own.
   */
  writes?: 'allow';
  /** Aborts the search (the caller went away); the service adds its own time limit. Not a request field. */
  signal?: AbortSignal;
  /** 'monitor': a scheduled monitor's search, run in the monitors' own slots (query/admission.ts). Not a request field. */
  lane?: 'monitor';
}

/**
 * An event as the API returns it (docs/decisions/0013-search-api-and-answers.md): the stored event with its
 * time as RFC 3339 text (microseconds).
 */
export interface EventJson extends Omit<LogEvent, 'timeUs' | 'fields'> {
  time: string;
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
  /** Present when the answer is incomplete: part of the stored data could not be read (EventStore.readWarnings), a subsearch was cut at its row limit (query/subsearch.ts). */
  warnings?: string[];
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

/** Events around one event (GET /api/context): same env and index, optionally the same host and source. */
export interface ContextRequest {
  env: string;
  index: string;
  /** The event's `time` exactly as search returned it (RFC 3339, microseconds); compared to the microsecond. */
  time: string;
  /** When given, only events with exactly this host / source. */
  host?: string;
  source?: string;
  /** Events wanted on each side, 0 to 500 (default 20). */
  before?: number;
  after?: number;
  signal?: AbortSignal;
}

/** Each list in ascending time; `at` holds every event at exactly `time` (at most 1000). */
export interface ContextResult {
  before: EventJson[];
  at: EventJson[];
  after: EventJson[];
  /** More events exist before the first of `before` (after the last of `after`). */
  moreBefore: boolean;
  moreAfter: boolean;
}

/** A search's results for download: events newest first (or the table's rows), at most `max`. */
export interface ExportRequest extends SearchRequest {
  /** Most events or rows (1 to 1,000,000; default 100,000). */
  max?: number;
  /** The sink needs the user fields of the exported events before the first one (a CSV header). */
  fieldList?: boolean;
}

/** What an export is, told to the sink before any row. */
export type ExportHead =
  | {
      mode: 'events';
      /** User fields non-null in at least one exported event, sorted; only when asked for. */ fields?: string[];
    }
  | { mode: 'table'; columns: string[] };

/**
 * Where an export's rows go (the HTTP edge encodes them as CSV or NDJSON). Called by one export at
 * a time, in order: `begin` once (also when nothing matched), then `events` or `rows` per chunk.
 * Each call resolves when the sink can take more: that is the backpressure that paces DuckDB.
 */
export interface ExportSink {
  begin(head: ExportHead): Promise<void>;
  events(batch: EventJson[]): Promise<void>;
  rows(batch: unknown[][]): Promise<void>;
}

export interface ExportSummary {
  /** Events or rows handed to the sink. */
  written: number;
  mode: 'events' | 'table';
}

/**
 * Reads of events beside search, for the web UI: the events around one event, and a search's
 * results streamed for download. Same RBAC as search (naming a forbidden env/index throws
 * access_denied). Safe to call concurrently.
 */
export interface EventReader {
  context(principal: Principal, req: ContextRequest): Promise<ContextResult>;
  /**
   * Streams a search's results into `sink`. Errors before `sink.begin` are the caller's to answer;
   * after it, the export stops and rejects (the sink's consumer has already started).
   */
  export(principal: Principal, req: ExportRequest, sink: ExportSink): Promise<ExportSummary>;
}
