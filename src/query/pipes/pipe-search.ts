import { doc } from '../doc.js';
import { compileSearch, printSearch, searchFields, type SearchNode } from '../search/filter-logic.js';
import { pipeError } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `search <expression>` after the first pipe (Splunk's search command): keeps the rows that match
 * a search-part expression, read by the very grammar of the part before the first pipe (the same
 * parser entry point, so every form it has works here too). Field comparisons read the fields of
 * the rows at that point: after `stats`, the table's columns (`| stats count by host | search
 * count>10`), compared as in the search part (`=` case-insensitive with `*` wildcards, numbers
 * numerically). A search term or phrase matches the message, so it needs events that still have
 * one; `earliest=`/`latest=` set the time range only before the first pipe.
 */
export interface SearchPipe {
  kind: 'search';
  search: SearchNode;
}

/** The first node of the expression that needs the message, or is a time bound; undefined when none. */
function firstOf(n: SearchNode, kinds: ReadonlySet<string>): SearchNode | undefined {
  if (kinds.has(n.kind)) return n;
  if (n.kind === 'and' || n.kind === 'or') {
    for (const i of n.items) {
      const hit = firstOf(i, kinds);
      if (hit) return hit;
    }
  }
  if (n.kind === 'not') return firstOf(n.item, kinds);
  return undefined;
}

/**
 * Search-part nodes that match the message rather than a field: refused where the rows have no
 * message. A new node kind that matches the message (a TERM(), `_raw`) belongs here.
 */
export const MESSAGE_KINDS: ReadonlySet<string> = new Set(['term', 'phrase']);
const TIME_KINDS = new Set(['time']);

/** The first node of a search expression that matches the message, if any (MESSAGE_KINDS). */
export const messageNode = (n: SearchNode): SearchNode | undefined => firstOf(n, MESSAGE_KINDS);
/** The first `earliest=`/`latest=` of a search expression, if any. */
export const timeNode = (n: SearchNode): SearchNode | undefined => firstOf(n, TIME_KINDS);

export const searchPipe: PipeDef<SearchPipe> = {
  name: 'search',
  doc: doc(
    'search <search expression>',
    'Keeps the rows matching a search expression, as before the first pipe; after stats it compares the table’s fields.',
    'status>=400 | stats count by host | search count>10 host=web*',
  ),
  parse: (p, cmd) => {
    if (p.atPipeEnd()) throw p.unexpected(p.peek('search'), 'missing a search expression after "search"');
    const search = p.parseSearch();
    const time = timeNode(search);
    if (time)
      throw p.fail(
        `${printSearch(time)}: earliest and latest set the time range only in the search before the first "|"; use where _time…`,
        cmd,
      );
    return { kind: 'search', search };
  },
  print: (n) => `search ${printSearch(n.search)}`,
  reads: (n) => searchFields(n.search),
  writes: () => [],
  compile(n, b) {
    const search = dropMatchAll(n.search);
    if (!search) return; // `search *`: every row, a table's too (each security_content detection ends so)
    const term = messageNode(search);
    // a term matches the message (the search part's rule); a table has none to match against
    if (term && b.schema.get('message') !== 'str')
      throw pipeError(
        'search',
        `${printSearch(term)} is a search term, which matches the message, and the rows here have none (after stats, table or fields); compare a field instead, e.g. host=web*`,
      );
    b.push(`SELECT * FROM ${b.cur} WHERE ${compileSearch(search, b.schema, b.nowMs)}`);
  },
};

/**
 * The expression without its match-all `*` terms, or undefined when it matches every row: in
 * Splunk `search *` keeps every row, also after stats, where there is no message to match.
 */
function dropMatchAll(n: SearchNode): SearchNode | undefined {
  if (n.kind === 'term' && n.text === '*' && !n.directive) return undefined;
  if (n.kind === 'or') return n.items.some((i) => dropMatchAll(i) === undefined) ? undefined : n;
  if (n.kind !== 'and') return n;
  const items = n.items.map(dropMatchAll).filter((i): i is SearchNode => i !== undefined);
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0] : { ...n, items };
}
