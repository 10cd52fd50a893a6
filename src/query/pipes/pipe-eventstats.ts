import { doc } from '../doc.js';
import { checkDistinct } from '../stages.js';
import { aggName, checkGroupable, aggReads, expandWildcards, parseAggs, printAgg, type Agg } from './aggregations.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { addWindowAggs } from './window-aggs.js';

/**
 * `eventstats count, avg(ms) as mean by host`: the aggregations of `stats`, added to every event
 * as fields instead of replacing the events; an event lacking a by field gets none.
 */
export interface EventstatsPipe {
  kind: 'eventstats';
  aggs: Agg[];
  by: string[];
}

export const eventstatsPipe: PipeDef<EventstatsPipe> = {
  name: 'eventstats',
  doc: doc(
    'eventstats <agg>[, <agg>…] [by <field>, …]',
    "Adds the aggregations of stats, computed over each event's group (all events without by), to every event as fields, leaving the events as they were; an event lacking a by field gets none.",
    '* | eventstats avg(duration_ms) as mean by host | where duration_ms > 2 * mean',
  ),
  parse(p) {
    const aggs = parseAggs(p, [], { wildcard: true });
    const by = p.acceptKeyword('by') ? p.fieldList('a field after "by"') : [];
    return { kind: 'eventstats', aggs, by };
  },
  print: (n) => `eventstats ${n.aggs.map(printAgg).join(', ')}${n.by.length ? ` by ${printListNames(n.by)}` : ''}`,
  reads: (n) => (n.aggs.some((a) => a.field?.includes('*')) ? '*' : [...n.by, ...n.aggs.flatMap(aggReads)]),
  writes: (n) => n.aggs.map(aggName),
  compile(n, b) {
    const aggs = expandWildcards(n.aggs, b, n.by);
    checkGroupable('eventstats', b, n.by);
    checkDistinct('eventstats', [...n.by, ...aggs.map(aggName)], 'name an aggregation with "as"');
    const keys = n.by.map((f) => b.col(f).sql);
    const over = keys.length ? ` OVER (PARTITION BY ${keys.join(', ')})` : ' OVER ()';
    addWindowAggs('eventstats', b, aggs, n.by, over);
  },
};
