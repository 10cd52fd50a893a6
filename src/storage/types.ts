/**
 * The contract between the storage engine and the query layer.
 *
 * The query layer compiles a search into one DuckDB SQL statement over a relation the store
 * provides. The relation has the core columns
 *   _time TIMESTAMP, env VARCHAR, "index" VARCHAR, host VARCHAR, source VARCHAR,
 *   sourcetype VARCHAR, message VARCHAR
 * plus one column per user field (dotted names kept, e.g. "id.orig_h"), typed VARCHAR, BIGINT,
 * DOUBLE or BOOLEAN. It covers the sealed blocks the planner kept and the not-yet-sealed events.
 */
export interface ScanSpec {
  /** Environments to read (already narrowed by RBAC); never empty. */
  envs: string[];
  /** Indexes to read; null = every index of those envs. */
  indexes: string[] | null;
  /** Event-time range [fromUs, toUs) in epoch microseconds; undefined = unbounded. */
  fromUs?: number;
  toUs?: number;
  /** Stops the scan's queries when it aborts (a search's time limit, a caller gone). */
  signal?: AbortSignal;
  /**
   * Lowercased whole tokens that every matching event's message must contain. The store may skip a
   * block whose token filter proves one is absent. Empty: no pruning by tokens.
   */
  requiredTokens: string[];
  /**
   * Tokens required of the message only where the event stores none of `fields`: a filter on a
   * field whose value may be found in the message at search time. A block that stores none of the
   * fields may be pruned by the tokens like requiredTokens.
   */
  fieldTokens?: FieldTokens[];
  /**
   * User fields the statement references; the relation must expose each (NULL where absent).
   * '*' = every field (used when whole events are returned).
   */
  fields: string[] | '*';
}

export interface FieldTokens {
  fields: string[];
  tokens: string[];
}

export interface RelationInfo {
  /** A parenthesised SQL table expression, to be used as `FROM ${sql} AS e`. */
  sql: string;
  /**
   * User fields the relation exposes (beyond the core columns), by name; the column of field `f` is
   * named `fieldColumn(f)` (events/field-column.ts), so that `Foo` and `foo` are two columns.
   */
  fieldColumns: string[];
  /** The SQL type of each field column (VARCHAR for a field no event of the scan stores). */
  fieldTypes?: Readonly<Record<string, string>>;
  /** Events in the blocks and live data kept for this scan (before any filter). */
  candidateEvents: number;
}

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
}

/** Some rows of a streamed statement, with the statement's columns. */
export interface RowChunk {
  columns: string[];
  rows: unknown[][];
}

/**
 * Streams one statement's rows in chunks, in its order (`for await (const c of stream(sql))`).
 * Backpressure reaches DuckDB: the next chunk is computed only when the consumer asks for it.
 * Rejects with the scan signal's reason when it aborts (DuckDB is interrupted). Must be consumed
 * before the scan's `run` settles: the scanned files are released then.
 */
export type StreamRows = (sql: string) => AsyncIterable<RowChunk>;

export interface PartitionSummary {
  env: string;
  index: string;
  events: number;
  minTimeUs: number;
  maxTimeUs: number;
}

export interface FieldSummary {
  name: string;
  /** Storage type seen for it: 'string' | 'number' | 'boolean'. */
  type: string;
  /** Blocks + live buffers in which it appears (approximate popularity). */
  events: number;
}

/** The columns countByValue counts by. */
export type CountColumn = 'host' | 'source' | 'sourcetype' | 'index' | 'env';

/** Events per value of a column (countByValue), and where the counts came from. */
export interface ValueCounts {
  counts: Map<string, number>;
  /** Events in the blocks and live data a scan of the same range would keep. */
  candidateEvents: number;
  fromMetadata: number;
  fromRows: number;
}

/** What countByBucket counts: every event of these envs/indexes in [fromUs, toUs), unfiltered. */
export type BucketCountSpec = Omit<ScanSpec, 'requiredTokens' | 'fields'>;

export interface BucketCounts {
  /** [bucket, events], ascending, only buckets holding events; bucket = epoch_us(_time) // spanUs. */
  buckets: [number, number][];
  /** Events in the blocks and live data a scan of the same range would keep (RelationInfo.candidateEvents). */
  candidateEvents: number;
  /** Events counted from per-minute metadata, and from rows (for tests and benchmarks). */
  fromMetadata: number;
  fromRows: number;
}

/**
 * The storage engine's read side. Safe to call concurrently with ingest.
 * `scan` keeps the selected blocks from being deleted (merge, retention) until `run` settles.
 */
export interface EventStore {
  /**
   * Runs `run` over the relation of the spec: `exec` reads a statement's whole result, `stream`
   * reads it in chunks (exports). Both stop when the spec's signal aborts.
   */
  scan<T>(
    spec: ScanSpec,
    run: (relation: RelationInfo, exec: (sql: string) => Promise<QueryResult>, stream: StreamRows) => Promise<T>,
  ): Promise<T>;
  /** Events per env/index with their time range, sealed and live; for hints, index lists and MCP. */
  partitions(envs?: string[]): PartitionSummary[];
  /** Field names in the given envs/indexes/time range, from block sidecars and live buffers. */
  fields(spec: Omit<ScanSpec, 'requiredTokens' | 'fields'>): FieldSummary[];
  /**
   * Events per time bucket of `spanUs` microseconds, exactly what
   * `SELECT epoch_us(_time) // spanUs, count(*) FROM <scan relation> GROUP BY 1` answers for the
   * same spec with no tokens. fast path: blocks and live partitions answer from per-minute counts
   * when `spanUs` is a whole number of minutes; only the sub-minute edges of the range, and data
   * without counts (blocks written before they existed), are read. Safe to call concurrently with
   * ingest, seals and merges.
   */
  countByBucket(spec: BucketCountSpec, spanUs: number): Promise<BucketCounts>;
  /**
   * Events per value of `column` over every event of `spec`'s range (`* | stats count by host`):
   * from sidecars for the blocks the range holds whole, rows for the rest. Safe to call concurrently
   * with ingest, seals and merges.
   */
  countByValue(spec: BucketCountSpec, column: CountColumn): Promise<ValueCounts>;
  /**
   * Files a search of `envs` (all when undefined) leaves out because they cannot be read (a
   * damaged block, an unreadable live segment), as warnings for the search's answer.
   */
  readWarnings?(envs?: string[]): string[];
}
