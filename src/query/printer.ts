import type { Query } from './parser.js';
import { printQuery } from './pipes/registry.js';

/** Prints a query in canonical form; `print(parse(q)) === q` for every canonical query. */
export function print(q: Query): string {
  return printQuery(q);
}
