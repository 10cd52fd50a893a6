import type { Schema } from '../schema.js';
import { compileField, compileFieldIn, printField, type ExtractedValue, type FieldFilter } from './filter-field.js';
import {
  compilePhrase,
  compileTerm,
  phraseTokens,
  printPhrase,
  printTerm,
  termTokens,
  type PhraseFilter,
  type TermFilter,
} from './filter-term.js';
import { compileTime, printTime, type TimeFilter } from './filter-time.js';

/**
 * Implicit or explicit AND (printed as juxtaposition), OR, and NOT (`-term` prints as `NOT term`).
 * OR binds tighter than AND (parser.ts); the printer still puts an OR inside an AND in parentheses,
 * `(a OR b) c`, so that the canonical form reads the same under either habit.
 */
export interface AndFilter {
  kind: 'and';
  items: SearchNode[];
}
export interface OrFilter {
  kind: 'or';
  items: SearchNode[];
}
export interface NotFilter {
  kind: 'not';
  item: SearchNode;
}

/**
 * Splunk's subsearch in the search part (`NOT [search … | fields user]`): a query run first, whose
 * result rows become a filter (query/subsearch.ts) before the outer query is planned. `text` is the
 * subquery printed, to print the node back.
 */
export interface SubsearchFilter {
  kind: 'subsearch';
  /** The query in brackets (parser-api.ts Subquery, written out here: that module imports this one). */
  sub: { search: SearchNode; pipes: { kind: string }[] };
  text: string;
}

export type SearchNode =
  TermFilter | PhraseFilter | FieldFilter | TimeFilter | AndFilter | OrFilter | NotFilter | SubsearchFilter;

export const MATCH_ALL: TermFilter = Object.freeze({ kind: 'term', text: '*' });

export function printSearch(n: SearchNode): string {
  switch (n.kind) {
    case 'term':
      return printTerm(n);
    case 'phrase':
      return printPhrase(n);
    case 'field':
      return printField(n);
    case 'time':
      return printTime(n);
    case 'and':
      return n.items.map((i) => (i.kind === 'or' ? `(${printSearch(i)})` : printSearch(i))).join(' ');
    case 'or':
      return n.items.map((i) => (i.kind === 'and' ? `(${printSearch(i)})` : printSearch(i))).join(' OR ');
    case 'not':
      return `NOT ${n.item.kind === 'and' || n.item.kind === 'or' ? `(${printSearch(n.item)})` : printSearch(n.item)}`;
    case 'subsearch':
      return n.text.startsWith('|') ? `[${n.text}]` : `[search ${n.text}]`;
  }
}

/**
 * SQL that is TRUE or FALSE (never NULL) for each event. `extracted`: fields whose value may be
 * found in the message at search time, with the SQL finding it (filter-field.ts).
 */
export function compileSearch(
  n: SearchNode,
  schema: Schema,
  nowMs: number,
  extracted?: ReadonlyMap<string, ExtractedValue>,
): string {
  const sub = (i: SearchNode) => compileSearch(i, schema, nowMs, extracted);
  switch (n.kind) {
    case 'term':
      return compileTerm(n);
    case 'phrase':
      return compilePhrase(n);
    case 'field':
      return compileField(n, schema, extracted);
    case 'time':
      return compileTime(n, nowMs);
    case 'and':
      return `(${n.items.map(sub).join(' AND ')})`;
    case 'or': {
      const grouped = groupedFields(n.items);
      const rest = n.items.filter((i) => !(listable(i) && grouped.has(i.field)));
      return `(${[...orGroups(grouped, n.items, schema, extracted), ...rest.map(sub)].join(' OR ')})`;
    }
    case 'not':
      return `(NOT ${sub(n.item)})`;
    case 'subsearch':
      throw new Error('BUG: a subsearch reached the compiler unresolved (query/subsearch.ts)');
  }
}

/** A `field=value` that an IN list can take: a literal value compared without case. */
function listable(n: SearchNode): n is FieldFilter {
  return n.kind === 'field' && n.op === '=' && !n.value.includes('*') && !n.caseSensitive;
}

/** Fields that two or more listable items of an OR compare (compileFieldIn takes each such group). */
function groupedFields(items: SearchNode[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const i of items) if (listable(i)) (seen.has(i.field) ? twice : seen).add(i.field);
  return twice;
}

/** The OR's `field=v1 OR field=v2 …` groups, each as one membership test; a group that cannot be listed stays item by item. */
function orGroups(
  fields: Set<string>,
  items: SearchNode[],
  schema: Schema,
  extracted?: ReadonlyMap<string, ExtractedValue>,
): string[] {
  const out: string[] = [];
  for (const field of fields) {
    const group = items.filter((i): i is FieldFilter => listable(i) && i.field === field);
    out.push(
      compileFieldIn(
        field,
        group.map((g) => g.value),
        schema,
        extracted,
      ) ?? group.map((g) => compileField(g, schema, extracted)).join(' OR '),
    );
  }
  return out;
}

/** The positively AND-ed nodes at the top: what every match must satisfy. */
export function conjuncts(n: SearchNode): SearchNode[] {
  return n.kind === 'and' ? n.items.flatMap(conjuncts) : [n];
}

/** Lowercased tokens every matching message must contain (for block pruning). */
export function requiredTokens(n: SearchNode): string[] {
  const out = new Set<string>();
  for (const c of conjuncts(n)) {
    if (c.kind === 'term') termTokens(c).forEach((t) => out.add(t));
    if (c.kind === 'phrase') phraseTokens(c).forEach((t) => out.add(t));
  }
  return [...out];
}

/** Field names the search reads (core and user). */
export function searchFields(n: SearchNode): string[] {
  switch (n.kind) {
    case 'field':
      return [n.field];
    case 'and':
    case 'or':
      return n.items.flatMap(searchFields);
    case 'not':
      return searchFields(n.item);
    default:
      return [];
  }
}
