import { doc } from '../doc.js';
import type { Parser } from '../parser-api.js';
import type { Schema } from '../schema.js';
import { ident } from '../sql.js';
import { ascending, checkDistinct } from '../stages.js';
import {
  aggName,
  groupByEachValue,
  aggReads,
  aggSql,
  expandWildcards,
  parseAggs,
  prepareAggs,
  printAgg,
  type Agg,
} from './aggregations.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';

/** `stats count, avg(ms) as mean by host, status`: one row per group, ordered by the group fields. */
export interface StatsPipe {
  kind: 'stats';
  aggs: Agg[];
  by: string[];
}

export const statsPipe: PipeDef<StatsPipe> = {
  name: 'stats',
  doc: doc(
    'stats <agg>[, <agg>…] [by <field>, …]',
    'Aggregates events into one row per combination of the by fields, sorted by them; events lacking a by field are left out.',
    '* | stats count by host',
  ),
  parse(p: Parser): StatsPipe {
    const aggs = parseAggs(p, [], { wildcard: true });
    const by = p.acceptKeyword('by') ? p.fieldList('a field after "by"') : [];
    return { kind: 'stats', aggs, by };
  },
  print: (n) => `stats ${n.aggs.map(printAgg).join(', ')}${n.by.length ? ` by ${printListNames(n.by)}` : ''}`,
  reads: (n) => (n.aggs.some((a) => a.field?.includes('*')) ? '*' : [...n.by, ...n.aggs.flatMap(aggReads)]),
  writes: () => 'all',
  compile(n, b) {
    b.markMatched();
    const aggs = expandWildcards(n.aggs, b, n.by);
    groupByEachValue(b, n.by);
    checkDistinct('stats', [...n.by, ...aggs.map(aggName)], 'name an aggregation with "as"');
    const env = prepareAggs('stats', aggs, b);
    const schema: Schema = new Map();
    const select: string[] = [];
    for (const f of n.by) {
      const c = b.col(f);
      select.push(`${c.sql} AS ${ident(f)}`);
      schema.set(f, c.type);
    }
    for (const a of aggs) {
      const s = aggSql(a, b, env);
      select.push(`${s.sql} AS ${ident(aggName(a))}`);
      schema.set(aggName(a), s.type);
    }
    const keys = n.by.map((f) => b.col(f).sql);
    const where = keys.length ? ` WHERE ${keys.map((k) => `${k} IS NOT NULL`).join(' AND ')}` : '';
    const group = keys.length ? ` GROUP BY ${n.by.map((_, i) => i + 1).join(', ')}` : '';
    b.push(`SELECT ${select.join(', ')} FROM ${b.cur}${where}${group}`, schema);
    b.order = ascending(n.by);
    b.mode = 'table';
  },
};
