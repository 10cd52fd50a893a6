import type { Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { ColRef, Schema } from '../schema.js';
import { compileSearch, type SearchNode } from '../search/filter-logic.js';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Splunk's searchmatch("<search>") in eval and where: true when the row matches the search
 * expression in the string, read by the search part's own grammar (parser.ts) and compiled as the
 * search part is (terms and phrases match the message, `field=value` the row's field, with
 * wildcards and case as there); false, never null, otherwise.
 */

/** The search in the string token `t` (the call's one argument); a time bound is refused. */
export function readSearchmatch(p: Parser, t: Token): SearchNode {
  const search = p.searchInString(t);
  if (searchNodes(search).some((n) => n.kind === 'time'))
    throw p.fail('searchmatch: earliest and latest set the time range only in the search before the first "|"', t);
  return search;
}

function searchNodes(n: SearchNode): SearchNode[] {
  if (n.kind === 'and' || n.kind === 'or') return [n, ...n.items.flatMap(searchNodes)];
  if (n.kind === 'not') return [n, ...searchNodes(n.item)];
  return [n];
}

export function searchmatchSql(search: SearchNode | undefined, schema: Schema, nowMs: number): ColRef {
  if (!search) throw new Error('BUG: searchmatch without its parsed search');
  const term = searchNodes(search).some((n) => n.kind === 'term' || n.kind === 'phrase');
  // a term matches the message (the search part's rule); a table has none to match against
  if (term && schema.get('message') !== 'str')
    throw new SvcError(
      'invalid_query',
      'searchmatch: its search has a search term, which matches the message, and the rows here have none (after stats, table or fields); compare a field instead',
    );
  return { sql: `coalesce(${compileSearch(search, schema, nowMs)}, FALSE)`, type: 'bool' };
}
