import { isSvcError, SvcError } from '../errors/svc-error.js';

/**
 * DuckDB errors that only a query's own values cause: an invalid regular expression or time format
 * given as a constant (`match(message, "(")`, `strftime(_time, "%Q")`), a number out of a type's
 * range. The rest of the SQL is ours, so Binder, Parser and Internal errors stay bugs (500).
 */
const CAUSED_BY_QUERY = /^(Invalid Input|Conversion|Out of Range) Error: /;
/**
 * The same classes raised while reading a block or WAL file: damaged or oversized storage, never the
 * caller's fault. DuckDB names the file it could not read (`file '…'`, `file "…"`), or the JSON
 * reader's object limit (`maximum_object_size`, a WAL line over 16 MiB), or the Parquet reader.
 */
const ABOUT_FILES = /\bfile ['"]|\bparquet\b|maximum_object_size|\bread_json\b|\.ndjson\b/i;

/** `e` as the caller's error when the query's values caused it; storage errors as storage_unavailable. */
export function queryRunError(e: unknown): unknown {
  if (e instanceof Error && /^Out of Memory Error: /.test(e.message)) {
    return new SvcError(
      'query_too_large',
      'the search needs more memory than svc may use (SVC_DUCKDB_MEMORY_LIMIT): narrow the time range, the groups or the fields',
      { retryAfterSecs: 5, cause: e },
    );
  }
  if (isSvcError(e) || !(e instanceof Error)) return e;
  const reason = e.message.split('\n')[0];
  // a file the store could not read: the caller can retry once the store has set it aside; the
  // reason (which names the file) goes to the log through the cause, not to the caller
  if (ABOUT_FILES.test(e.message))
    return new SvcError(
      'storage_unavailable',
      'cannot read part of the stored data; the file is reported to the operator, retry shortly',
      { retryAfterSecs: 5, cause: e },
    );
  if (!CAUSED_BY_QUERY.test(e.message)) return e;
  return new SvcError('invalid_query', `the query cannot run: ${reason}`, { cause: e });
}

/** Runs `fn`, turning query-caused DuckDB errors into 400s and file errors into 503s. */
export async function mapQueryRunErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw queryRunError(e);
  }
}
