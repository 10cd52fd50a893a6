import type { CompiledQuery } from '../compile.js';

/**
 * One row: the non-null values of each of `names` over the compiled statement's result rows (an
 * export's CSV header). Columns by position (`#n`): the result names them as the answer does, and a
 * subquery would rename `foo` to `foo_1` beside `Foo`.
 */
export function usedFieldsSql(c: CompiledQuery, names: string[]): string {
  const at = (n: string) => c.columns.findIndex((x) => x.name === n) + 1;
  return `SELECT ${names.map((n) => `count(#${at(n)})`).join(', ')} FROM (${c.sql})`;
}
