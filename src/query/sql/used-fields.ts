import type { CompiledQuery } from '../compile.js';
import { ident } from '../sql.js';

/** One row: the non-null values of each of `names` over the compiled statement's result rows (an export's CSV header). */
export function usedFieldsSql(c: CompiledQuery, names: string[]): string {
  return `SELECT ${names.map((n) => `count(${ident(n)})`).join(', ')} FROM (${c.sql})`;
}
