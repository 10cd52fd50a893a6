/**
 * The SQL column name a field travels under between the store's relation and the query's stages.
 *
 * Field names are case-sensitive (`Foo` and `foo` are two fields, as in Splunk), DuckDB's
 * identifiers are not: it folds ASCII letters (only: `é`/`É`, `ß`/`SS` are two columns to it), so
 * a relation or CTE with columns `Foo` and `foo` binds both to the first and renames the second
 * `foo_1`. Names with an ASCII capital (or the marker) therefore get a suffix after U+0001 listing
 * the capitals' positions: `Foo` → `Foo\u00010`, `FOO` → `FOO\u00010,1,2`, `foo` stays `foo`.
 * Two distinct names never give columns equal ignoring ASCII case (an unmarked name has no capital
 * and no marker; marked ones with equal suffixes have capitals at the same places), and the result's
 * top-level SELECT names every column back (fieldOfColumn), so no reader ever sees the suffix.
 */

const MARKER = '\u0001';
const NEEDS_SUFFIX = /[A-Z\u0001]/;

/** The column name (unquoted) of field `name`. */
export function fieldColumn(name: string): string {
  // fast path: lower-case names (nearly all, and every core column) are their own column
  if (!NEEDS_SUFFIX.test(name)) return name;
  const caps: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) caps.push(i);
  }
  return `${name}${MARKER}${caps.join(',')}`;
}

/** The field name of a column made by fieldColumn; any other name is returned as it is. */
export function fieldOfColumn(column: string): string {
  const at = column.lastIndexOf(MARKER);
  return at < 0 ? column : column.slice(0, at);
}
