/**
 * The lookup tables the `lookup` pipe joins against, as the compiler sees them: SQL it can read,
 * never files (src/lookups/ owns where the bytes are and keeps them on this node).
 */
export interface LookupTable {
  name: string;
  /** A relation over the table, usable as a FROM item (`read_parquet('…')`). */
  relation: string;
  /** The CSV's columns in header order, each with the relation's column holding it (text; NULL for an empty cell). */
  columns: { name: string; sql: string }[];
  /** The relation's column giving each row's place in the CSV (0 first): of rows with equal keys, the first wins. */
  rowSql: string;
}

/**
 * Called while a query compiles, so synchronous and cheap; safe to call concurrently.
 * Answers undefined for a name no table has. Throws SvcError `storage_unavailable` when the table
 * exists but this node has no copy of it yet (another node uploaded it a moment ago).
 */
export interface LookupCatalog {
  table(name: string): LookupTable | undefined;
}

/**
 * Writes a lookup table from a search's rows (`outputlookup`; src/lookups/ owns the files): the
 * table `name` becomes these rows, or with `append` its rows and then these (columns joined by
 * name). With `key`, the table is updated by that column: its rows whose key one of these rows has
 * are replaced by that row (the last of them), these rows' other keys are added after its rows, and
 * its other rows are kept. Values are written as text, null as an empty cell. Throws SvcError like
 * an upload does (a bad name or column, too large, too many tables).
 */
export interface LookupWriter {
  write(
    name: string,
    columns: string[],
    rows: unknown[][],
    opts: { append: boolean; key?: string; by: string },
  ): Promise<void>;
}
