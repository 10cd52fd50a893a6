import { doc } from '../doc.js';
import type { Subquery } from '../parser-api.js';
import type { ColType } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `append [search <query>]`: the rows of a subquery after the current ones (Splunk's append). The
 * subquery reads the same events as the main search (its environments and time range; its own
 * filters, `index=` and `earliest=` narrow them) and may have pipes of its own. The result has the
 * columns of both; it stays events when both sides are events.
 */
export interface AppendPipe {
  kind: 'append';
  sub: Subquery;
}

/** Whether a query's pipes turn its events into a table (stats, table…), as compile.ts's analysis says. */
export type ProducesTable = (q: Subquery) => boolean;

/**
 * The pipe, given how to print a subquery in brackets and whether it yields a table: both need the
 * registry, which lists this pipe (registry.ts builds it; no import cycle).
 */
export function appendPipeWith(printSub: (q: Subquery) => string, producesTable: ProducesTable): PipeDef<AppendPipe> {
  return {
    name: 'append',
    doc: doc(
      'append [search <query>]',
      'Adds the rows of a subquery, run over the same environments and time range, after the current rows.',
      'status>=500 | stats count by host | append [search status>=500 | stats count as count] | sort -count',
    ),
    parse: (p) => ({ kind: 'append', sub: p.subquery('subsearch') }),
    print: (n) => `append ${printSub(n.sub)}`,
    // the subquery reads the events themselves: compile.ts's readFields adds its fields
    reads: () => [],
    writes: (n) => (producesTable(n.sub) ? 'all' : []),
    compile(n, b) {
      if (!b.subquery) throw new Error('BUG: append outside compile()');
      appendRows('append', b, b.subquery(n.sub));
    },
  };
}

/** Puts the rows of `sub` (a builder over the same statement) after the rows of `b`, each side in its order. */
export function appendRows(pipe: string, b: StageBuilder, sub: StageBuilder): void {
  const schema = new Map<string, ColType>(b.schema);
  for (const [name, type] of sub.schema) schema.set(name, schema.has(name) && schema.get(name) !== type ? 'any' : type);
  if ([...schema.keys()].some((k) => k === '__ord')) throw pipeError(pipe, 'a column may not be named __ord');
  const numbered = (x: StageBuilder, offset: string) =>
    `SELECT ${[...x.schema.keys()].map(ident).join(', ')}, ${offset}row_number() OVER (${x.orderBy().trim()}) AS __ord FROM ${x.cur}`;
  const mode = b.mode === 'table' || sub.mode === 'table' ? 'table' : 'events';
  b.push(`${numbered(b, '')} UNION ALL BY NAME ${numbered(sub, '1000000000000 + ')}`, schema);
  b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
  b.mode = mode;
}
