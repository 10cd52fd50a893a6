import { doc } from '../doc.js';
import type { Parser } from '../parser-api.js';
import { checkDistinct, type StageBuilder } from '../stages.js';
import { aggName, checkGroupable, aggReads, parseAggs, printAgg, type Agg } from './aggregations.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { PipeOptions } from './pipe-options.js';
import { addWindowAggs } from './window-aggs.js';

/**
 * `streamstats [window=N] [current=false] [global=false] <aggs> [by f, …]`: the aggregations of
 * `stats` running over the events in their current order (newest first unless sorted), added to
 * each event: over every event so far, or the last N (`window`), without the event itself when
 * `current=false`. With `by`, each group runs apart; with a window too, the window counts the last
 * N events of all groups unless `global=false` (Splunk's meaning of `global`).
 */
export interface StreamstatsPipe {
  kind: 'streamstats';
  /** 0: every event so far. */
  window: number;
  current: boolean;
  global: boolean;
  aggs: Agg[];
  by: string[];
}

const OPTIONS = ['window', 'current', 'global'] as const;
const MAX_WINDOW = 10_000;

function parseStreamstats(p: Parser): StreamstatsPipe {
  const n: StreamstatsPipe = { kind: 'streamstats', window: 0, current: true, global: true, aggs: [], by: [] };
  const opts = new PipeOptions(p, OPTIONS);
  // options before the aggregations (Splunk's order), after them or at the end
  const readOptions = () => {
    for (let name = opts.next(); name !== undefined; name = opts.next()) {
      if (name === 'window') n.window = opts.count(name, MAX_WINDOW);
      else if (name === 'current') n.current = opts.bool(name);
      else n.global = opts.bool(name);
    }
  };
  readOptions();
  n.aggs = parseAggs(p, OPTIONS);
  readOptions();
  if (p.acceptKeyword('by')) n.by = p.fieldList('a field after "by"', { stop: [...OPTIONS] });
  readOptions();
  return n;
}

function printStreamstats(n: StreamstatsPipe): string {
  const opts = [
    n.window ? `window=${n.window}` : '',
    n.current ? '' : 'current=false',
    n.global ? '' : 'global=false',
  ].filter(Boolean);
  return (
    ['streamstats', ...opts, n.aggs.map(printAgg).join(', ')].join(' ') +
    (n.by.length ? ` by ${printListNames(n.by)}` : '')
  );
}

/**
 * The window frame over the row numbers. A global window over groups is a range of row numbers
 * (the last N events of all groups) within the group's partition; otherwise the last N rows of
 * the partition.
 */
function frameSql(n: StreamstatsPipe): string {
  const unit = n.window && n.global && n.by.length ? 'RANGE' : 'ROWS';
  const from = n.window ? `${n.current ? n.window - 1 : n.window} PRECEDING` : 'UNBOUNDED PRECEDING';
  return `${unit} BETWEEN ${from} AND ${n.current ? 'CURRENT ROW' : '1 PRECEDING'}`;
}

/**
 * Numbers the rows 1, 2, … in the current order and makes that the order, so that the running
 * values and the order the events come out in agree on ties (events of the same time). The name is
 * new for each stage (an earlier numbering may still be a column after a sort changed the order)
 * and is no field's.
 */
function numberRows(b: StageBuilder): string {
  let seq = `__seq${b.ctes.length}`;
  for (let i = 1; b.schema.has(seq); i++) seq = `__seq${b.ctes.length}_${i}`;
  b.push(`SELECT *, row_number() OVER (${b.orderBy()}) AS ${seq} FROM ${b.cur}`);
  b.order = [{ sql: seq, desc: false, cols: [seq] }];
  return seq;
}

export const streamstatsPipe: PipeDef<StreamstatsPipe> = {
  name: 'streamstats',
  doc: doc(
    'streamstats [window=<N>] [current=false] [global=false] <agg>[, <agg>…] [by <field>, …]',
    'Adds to each event the aggregations of stats over the events before it in the current order (newest first unless sorted) and itself, or only the last N with window, per group with by.',
    'host=web-1 | sort _time | streamstats window=5 avg(duration_ms) as moving',
  ),
  parse: parseStreamstats,
  print: printStreamstats,
  reads: (n) => [...n.by, ...n.aggs.flatMap(aggReads)],
  writes: (n) => n.aggs.map(aggName),
  compile(n, b) {
    checkGroupable('streamstats', b, n.by);
    checkDistinct('streamstats', [...n.by, ...n.aggs.map(aggName)], 'name an aggregation with "as"');
    const keys = n.by.map((f) => b.col(f).sql);
    const seq = numberRows(b);
    const over = ` OVER (${keys.length ? `PARTITION BY ${keys.join(', ')} ` : ''}ORDER BY ${seq} ${frameSql(n)})`;
    addWindowAggs('streamstats', b, n.aggs, n.by, over, seq);
  },
};
