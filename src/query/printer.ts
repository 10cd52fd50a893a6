import type { Query } from './parser.js';
import { pipeDef } from './pipes/registry.js';
import { printSearch } from './search/filter-logic.js';

/** Prints a query in canonical form; `print(parse(q)) === q` for every canonical query. */
export function print(q: Query): string {
  return [printSearch(q.search), ...q.pipes.map((p) => pipeDef(p).print(p))].join(' | ');
}
