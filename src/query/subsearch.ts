import { SvcError } from '../errors/svc-error.js';
import type { Subquery } from './parser-api.js';
import type { Query } from './parser.js';
import { parse } from './parser.js';
import { MATCH_ALL, type SearchNode, type SubsearchFilter } from './search/filter-logic.js';
import type { FieldFilter } from './search/filter-field.js';
import type { EventJson, SearchResult } from './types.js';
import { mapTree, visitTree } from './tree.js';

/**
 * Splunk's subsearches in the search part (`error NOT [search status=404 | fields clientip]`):
 * each runs first, as a search of its own over the same envs, indexes and time range, and its
 * result rows become a filter in place of the brackets, as Splunk's implicit `format` builds it:
 * `(f1="a" f2="b") OR (f1="c" f2="d")`. Only the first SUBSEARCH_MAXOUT rows count (Splunk's
 * `maxout` default), and the answer says so when there were more. Rows are compared as field
 * filters are (`=` ignores case, `*` is a wildcard). Fields whose names start with `_` are left out;
 * a field named `search` or `query` holds search text used as written. No rows: the subsearch
 * matches nothing (so `NOT [ … ]` matches everything).
 */
export const SUBSEARCH_MAXOUT = 10_000;

/** Runs one subquery (its own subsearches resolved by the same path) and returns its first rows. */
export type SubsearchRunner = (sub: Subquery) => Promise<SearchResult>;

/** True when some part of the query (its search, a `| search`, a tstats filter, an append's query) holds a subsearch. */
export function hasSubsearch(q: Query): boolean {
  let found = false;
  visitTree(q, (n) => {
    if (isSubsearch(n)) found = true;
    return found ? 'skip' : undefined;
  });
  return found;
}

/**
 * The query with each subsearch replaced by the filter its rows make. `warn` hears of a subsearch
 * whose rows were cut at SUBSEARCH_MAXOUT.
 */
export async function resolveSubsearches(q: Query, run: SubsearchRunner, warn: (w: string) => void): Promise<Query> {
  const found: SubsearchFilter[] = [];
  visitTree(q, (n) => {
    if (!isSubsearch(n)) return;
    found.push(n);
    return 'skip';
  });
  const filters = new Map<SubsearchFilter, SearchNode>();
  // one after another: each holds a search slot's worth of work, and the outer search holds the slot
  for (const n of found) {
    if (filters.has(n)) continue;
    const r = await run(n.sub);
    const rows = resultRows(r);
    if (rows.cut)
      warn(`a subsearch gave more than ${SUBSEARCH_MAXOUT} rows; only the first ${SUBSEARCH_MAXOUT} were used`);
    filters.set(n, formatRows(rows.rows));
  }
  return mapTree(q, isSubsearch, (n) => filters.get(n) ?? n);
}

/** The core fields of an event a subsearch's row keeps (env is svc's own partition, not a Splunk field). */
const CORE = ['index', 'host', 'source', 'sourcetype'] as const;

interface Rows {
  rows: Record<string, unknown>[];
  cut: boolean;
}

/** A result's rows as name → value: a table's rows, or each event's fields with index, host, source and sourcetype. */
function resultRows(r: SearchResult): Rows {
  if (r.columns && r.rows) {
    const cols = r.columns;
    const rows = r.rows.slice(0, SUBSEARCH_MAXOUT).map((row) => Object.fromEntries(cols.map((c, i) => [c, row[i]])));
    return { rows, cut: r.rows.length > SUBSEARCH_MAXOUT };
  }
  // a core field a pipe dropped (`| fields clientip`) comes back as "": not a value to match
  const core = (e: EventJson) => Object.fromEntries(CORE.flatMap((k) => (e[k] === '' ? [] : [[k, e[k]]])));
  const rows = r.events.slice(0, SUBSEARCH_MAXOUT).map((e) => ({ ...core(e), ...e.fields }));
  return { rows, cut: r.meta.matched > rows.length };
}

/** Splunk's `format` of the rows: OR of each row's AND of `field="value"` (a multivalue: OR of its values). */
export function formatRows(rows: Record<string, unknown>[]): SearchNode {
  const ors: SearchNode[] = [];
  for (const row of rows) {
    const ands: SearchNode[] = [];
    for (const [name, value] of Object.entries(row)) {
      if (name.startsWith('_') || value === null || value === undefined) continue;
      const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined);
      if (values.length === 0) continue;
      const lower = name.toLowerCase();
      const nodes =
        lower === 'search' || lower === 'query'
          ? values.map((v) => searchText(cell(v))).filter((n): n is SearchNode => n !== undefined)
          : values.map((v): FieldFilter => ({ kind: 'field', field: name, op: '=', value: cell(v), quoted: true }));
      if (nodes.length > 0) ands.push(nodes.length === 1 ? nodes[0] : { kind: 'or', items: nodes });
    }
    if (ands.length > 0) ors.push(ands.length === 1 ? ands[0] : { kind: 'and', items: ands });
  }
  // no rows: nothing matches (Splunk's `NOT ()`)
  if (ors.length === 0) return { kind: 'not', item: MATCH_ALL };
  return ors.length === 1 ? ors[0] : { kind: 'or', items: ors };
}

const cell = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);

/** A `search`/`query` cell: search-part text (`host=a OR host=b`), parsed as the part before a pipe. */
function searchText(text: string): SearchNode | undefined {
  if (text.trim() === '') return undefined;
  // what `format` writes for no rows (its emptystr): nothing matches
  if (/^\s*NOT\s*\(\s*\)\s*$/.test(text)) return { kind: 'not', item: MATCH_ALL };
  let q: Query;
  try {
    q = parse(text);
  } catch (e) {
    throw new SvcError(
      'invalid_query',
      `a subsearch's ${JSON.stringify('search')} field holds a search svc cannot read: ${(e as Error).message}`,
    );
  }
  if (q.pipes.length > 0)
    throw new SvcError('invalid_query', `a subsearch's "search" field holds pipes: ${JSON.stringify(text)}`);
  return q.search;
}

/**
 * A subsearch node of the query. Walks stop at one (they do not enter it): each subquery resolves
 * its own subsearches when it runs.
 */
function isSubsearch(o: Record<string, unknown>): o is SubsearchFilter & Record<string, unknown> {
  return o.kind === 'subsearch' && 'sub' in o && 'text' in o;
}
