import { doc } from '../doc.js';
import { describe, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { printSearch, type SearchNode } from '../search/filter-logic.js';
import { ident } from '../sql.js';
import { ascending, checkDistinct } from '../stages.js';
import { parseSpan } from '../time-range.js';
import { aggName, aggReads, parseAggs, printAgg, type Agg } from './aggregations.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { binPipe } from './pipe-bin.js';
import { fillnullPipe } from './pipe-fillnull.js';
import { statsPipe } from './pipe-stats.js';

/**
 * `| tstats [summariesonly=<bool>] [allow_old_summaries=<bool>] [prestats=false] [fillnull_value=X] <agg>…
 * [where <search>] [by|groupby <field>, … [span=<span>]]` (Splunk's tstats) over svc's own stored
 * events: the answer of `<search> | bin _time span=<span> | stats <agg>… by <field>, …`, except
 * that aggregations over `_time` (`max(_time)`, `latest(_time)`) read each event's own time, not
 * its bucket, as Splunk's do. Splunk's tstats reads only indexed fields (fast, but a filter on
 * another field matches nothing there); svc reads every field, so any filter of the search part is
 * honoured, at the speed of the equivalent stats. There are no data models (`from datamodel=`) and
 * no summaries: the summary options cannot change the answer and are accepted; `prestats=true`
 * (rows only timechart/stats can read) is refused. The where clause becomes the query's search
 * part (parser.ts), so its earliest=/latest= bound the time range as in any search.
 */
export interface TstatsPipe {
  kind: 'tstats';
  aggs: Agg[];
  where?: SearchNode;
  by: string[];
  /** The bucket of `_time` in `by`; required with it (Splunk's automatic span is not svc's). */
  span?: string;
  /** Summary options as written (`summariesonly=t`), printed back; they change nothing on svc. */
  options: string[];
  /** `fillnull_value=X`: a by field without a value groups under X instead of leaving the event out. */
  fillnull?: string;
}

/** Options that only choose between data-model summaries and events: svc has no summaries, so both give its events. */
const SUMMARY_OPTIONS = ['summariesonly', 'allow_old_summaries', 'include_reduced_buckets'];
/** Splunk options that change the answer in ways svc does not reproduce. */
const REFUSED_OPTIONS: Record<string, string> = {
  local: 'svc runs on one node',
  append: 'it adds to prestats rows, which svc has no use for',
  chunk_size: 'it tunes data-model reads, which svc has not',
  use_summary_index_values: 'svc has no summary indexes',
};
const BOOLS = ['true', 't', 'false', 'f', '1', '0', 'yes', 'no'];
const BUCKET = '__tstats_time';
const NO_DATA_MODELS =
  'svc has no data models: tstats reads the events svc stores; give their filter after "where" (where index=web sourcetype=access)';

function parseOptions(p: Parser, n: TstatsPipe): void {
  for (;;) {
    const t = p.peek('search');
    const name = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (name === 'datamodel') throw p.fail(NO_DATA_MODELS, t);
    if (name === 'fillnull_value') {
      p.next('search');
      if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${t.text}"`);
      if (n.fillnull !== undefined) throw p.fail(`${describe(t)} is given twice`, t);
      const v = p.next('search');
      if (v.kind !== 'word' && v.kind !== 'string') throw p.unexpected(v, 'missing a value after "fillnull_value="');
      n.fillnull = v.text;
      continue;
    }
    const known = SUMMARY_OPTIONS.includes(name) || name === 'prestats';
    if (!known && !Object.hasOwn(REFUSED_OPTIONS, name)) return;
    p.next('search');
    if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${t.text}"`);
    if (!known) throw p.fail(`tstats ${name}= is not supported: ${REFUSED_OPTIONS[name]}`, t);
    const v = p.next('search');
    const value = v.kind === 'word' ? v.text.toLowerCase() : '';
    if (!BOOLS.includes(value)) throw p.fail(`unexpected ${describe(v)}: missing true or false after "${name}="`, v);
    if (name === 'prestats' && ['true', 't', '1', 'yes'].includes(value))
      throw p.fail(
        'tstats prestats=true makes rows only Splunk\'s timechart and stats read: drop it and aggregate in tstats ("| tstats count by _time span=1h")',
        t,
      );
    n.options.push(`${name}=${value}`);
  }
}

function parseTstats(p: Parser, cmd: Token): TstatsPipe {
  if (!p.leading(cmd)) throw p.fail('tstats starts a search ("| tstats count by host" with nothing before it)', cmd);
  const n: TstatsPipe = { kind: 'tstats', aggs: [], by: [], options: [] };
  parseOptions(p, n);
  n.aggs = parseAggs(p, ['where', 'from', 'groupby', 'datamodel']);
  for (const a of n.aggs)
    if (a.expr) throw p.fail(`tstats aggregates fields, not eval(): use "| stats ${printAgg(a)}" after a search`, cmd);
  const from = p.peek('search');
  if (from.kind === 'word' && ['from', 'datamodel'].includes(from.text.toLowerCase()))
    throw p.fail(NO_DATA_MODELS, from);
  const where = p.peek('search');
  if (where.kind === 'word' && where.text.toLowerCase() === 'where') {
    p.next('search');
    const at = p.peek('search');
    n.where = p.parseSearch(['by', 'groupby']);
    if (at.pos === p.peek('search').pos) throw p.unexpected(at, 'missing a search expression after "where"');
  }
  const by = p.peek('search');
  if (by.kind === 'word' && ['by', 'groupby'].includes(by.text.toLowerCase())) {
    p.next('search');
    parseBy(p, n, by);
  }
  return n;
}

/** The by list, with `span=` anywhere after `by` (Splunk writes it last, or right after `_time`). */
function parseBy(p: Parser, n: TstatsPipe, byTok: Token): void {
  let spanTok: Token | undefined;
  for (;;) {
    n.by.push(
      ...p.fieldList('a field after "by"', { stop: ['span', 'where'], allowEmpty: n.by.length > 0 || !!spanTok }),
    );
    const late = p.peek('search');
    if (late.kind === 'word' && late.text.toLowerCase() === 'where')
      throw p.fail('tstats takes its where clause before "by"', late);
    const t = p.peek('expr');
    if (!p.acceptKeyword('span')) break;
    if (spanTok) throw p.fail(`${describe(t)} is given twice`, t);
    spanTok = t;
    p.expectOp('=', 'expr');
    const v = p.next('search');
    if (v.kind !== 'word' || parseSpan(v.text) === undefined)
      throw p.fail(`unexpected ${describe(v)}: missing a time span such as 1h, 5m or 1d`, v);
    n.span = v.text;
    if (p.atPipeEnd()) break;
  }
  if (n.by.length === 0) throw p.fail('missing a field after "by"', byTok);
  if (n.span !== undefined && !n.by.includes('_time'))
    throw p.fail('span= buckets _time: add _time to the by fields ("by _time, host span=1h")', spanTok ?? byTok);
  if (n.span === undefined && n.by.includes('_time'))
    throw p.fail("tstats by _time needs span= (span=1h, 5m, 1d): svc does not guess Splunk's automatic span", byTok);
}

function printTstats(n: TstatsPipe): string {
  const fill =
    n.fillnull === undefined
      ? []
      : [`fillnull_value=${/^[\w.:-]+$/.test(n.fillnull) ? n.fillnull : quoteString(n.fillnull)}`];
  const parts = ['tstats', ...n.options, ...fill, n.aggs.map(printAgg).join(', ')];
  if (n.where) parts.push(`where ${printSearch(n.where)}`);
  if (n.by.length) parts.push(`by ${printListNames(n.by)}`);
  if (n.span !== undefined) parts.push(`span=${n.span}`);
  return parts.join(' ');
}

export const tstatsPipe: PipeDef<TstatsPipe> = {
  name: 'tstats',
  doc: doc(
    'tstats <agg>[, <agg>…] [where <search>] [by <field>, … [span=<span>]] (after a leading "|")',
    'Aggregates the stored events that match the where search, as "<search> | bin _time span=… | stats … by …" would; svc has no data models.',
    '| tstats count where index=main by _time, host span=1h',
  ),
  parse: parseTstats,
  print: printTstats,
  reads: (n) => [...n.by, ...n.aggs.flatMap(aggReads)],
  writes: () => 'all',
  compile(n, b) {
    checkDistinct('tstats', [...n.by, ...n.aggs.map(aggName)], 'name an aggregation with "as"');
    // Splunk's fillnull_value: the by fields an event lacks take the value, so the event is counted
    const fill = n.by.filter((f) => f !== '_time');
    if (n.fillnull !== undefined && fill.length)
      fillnullPipe.compile({ kind: 'fillnull', value: n.fillnull, fields: fill }, b);
    if (n.span === undefined) {
      statsPipe.compile({ kind: 'stats', aggs: n.aggs, by: n.by }, b);
      return;
    }
    // the bucket goes into a column of its own, so that max(_time) or latest(_time) still read
    // each event's time; it takes the name _time once the rows are grouped
    binPipe.compile({ kind: 'bin', field: '_time', span: n.span, as: BUCKET }, b);
    statsPipe.compile({ kind: 'stats', aggs: n.aggs, by: n.by.map((f) => (f === '_time' ? BUCKET : f)) }, b);
    const schema = new Map([...b.schema].map(([k, t]) => [k === BUCKET ? '_time' : k, t]));
    const cols = [...b.schema.keys()].map((k) => (k === BUCKET ? `${ident(k)} AS ${ident('_time')}` : ident(k)));
    b.push(`SELECT ${cols.join(', ')} FROM ${b.cur}`, schema);
    b.order = ascending(n.by);
  },
  generating: () => true,
  searchPart: (n) => n.where,
};
