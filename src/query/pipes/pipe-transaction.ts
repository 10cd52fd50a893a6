import { doc } from '../doc.js';
import { toStr } from '../expr/coerce.js';
import type { Parser } from '../parser-api.js';
import type { ColType, Schema } from '../schema.js';
import {
  compilePhrase,
  compileTerm,
  printPhrase,
  printTerm,
  type PhraseFilter,
  type TermFilter,
} from '../search/filter-term.js';
import { ident } from '../sql.js';
import { ascending, checkDistinct, pipeError, type StageBuilder } from '../stages.js';
import { parseSpan } from '../time-range.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { PipeOptions } from './pipe-options.js';

/**
 * `transaction [f, …] [maxspan=D] [maxpause=D] [startswith=T] [endswith=T]`: the events that share
 * the fields' values, oldest first, cut into transactions. A new one starts at an event that would
 * make the transaction span more than maxspan (measured from its first event), that comes more than
 * maxpause after the one before, that matches startswith, or that follows one matching endswith.
 * With startswith (endswith), only transactions that begin (end) with a matching event are kept,
 * as Splunk drops the others. One row per transaction: the fields, `_time` (its first event),
 * `duration` (seconds from first to last), `eventcount` and `message` (the messages of its first
 * MESSAGE_EVENTS events, oldest first, one per line), newest first; and, as in Splunk, the events'
 * other fields (host, source, sourcetype, index and those later pipes read) as a multivalue of
 * their distinct values, sorted (a list of one when they agree). Events lacking a field are
 * left out. `connected=` is taken with one field (where it changes nothing, in Splunk too).
 */
export interface TransactionPipe {
  kind: 'transaction';
  fields: string[];
  maxspan?: string;
  maxpause?: string;
  startswith?: TermFilter | PhraseFilter;
  endswith?: TermFilter | PhraseFilter;
  /** As written; it changes nothing here (see parseTransaction). */
  connected?: boolean;
}

const OPTIONS = ['maxspan', 'maxpause', 'startswith', 'endswith', 'connected'] as const;
/** Core fields a transaction keeps from its events, with the user fields later pipes read. */
const CARRIED_CORE = ['host', 'source', 'sourcetype', 'index'];
/** The columns a transaction makes itself. */
const transactionOwn = (n: TransactionPipe): string[] => [...n.fields, '_time', 'duration', 'eventcount', 'message'];
const MESSAGE_EVENTS = 100;

function parseTransaction(p: Parser): TransactionPipe {
  const n: TransactionPipe = {
    kind: 'transaction',
    fields: p.fieldList('a field', { stop: [...OPTIONS], allowEmpty: true }),
  };
  const opts = new PipeOptions(p, OPTIONS);
  for (let name = opts.next(); name !== undefined; name = opts.next()) {
    if (name === 'maxspan' || name === 'maxpause') n[name] = opts.span(name);
    else if (name === 'startswith' || name === 'endswith') n[name] = opts.term(name);
    else {
      // Splunk's connected= decides where an event that has some of the fields but not all goes;
      // with one field there is no such event, and with more svc leaves such events out, so only
      // the one-field form means the same here
      const at = p.peek('expr');
      n.connected = opts.bool(name);
      if (n.fields.length > 1)
        throw p.fail(
          'transaction connected= is taken with one field only: it places events lacking some of the fields, which svc leaves out',
          at,
        );
    }
  }
  return n;
}

const printFilter = (f: TermFilter | PhraseFilter) => (f.kind === 'term' ? printTerm(f) : printPhrase(f));
const compileFilter = (f: TermFilter | PhraseFilter) => (f.kind === 'term' ? compileTerm(f) : compilePhrase(f));

function printTransaction(n: TransactionPipe): string {
  const opts = [
    n.maxspan && `maxspan=${n.maxspan}`,
    n.maxpause && `maxpause=${n.maxpause}`,
    n.startswith && `startswith=${printFilter(n.startswith)}`,
    n.endswith && `endswith=${printFilter(n.endswith)}`,
    n.connected !== undefined && `connected=${n.connected}`,
  ];
  return ['transaction', printListNames(n.fields), ...opts].filter(Boolean).join(' ');
}

/** The condition, over a row and the one before it (window `w`), for a row to start a transaction. */
function startsSql(n: TransactionPipe): string {
  const gap = '(__t - lag(__t) OVER w)';
  const us = (span: string) => parseSpan(span)! * 1_000_000;
  return [
    'lag(__t) OVER w IS NULL',
    ...(n.startswith ? ['__sw'] : []),
    ...(n.endswith ? ['coalesce(lag(__ew) OVER w, FALSE)'] : []),
    ...(n.maxpause ? [`${gap} > ${us(n.maxpause)}`] : []),
    // a pause longer than maxspan always starts one: cuts the segments cheaply before the maxspan pass
    ...(n.maxspan ? [`${gap} > ${us(n.maxspan)}`] : []),
  ].join(' OR ');
}

/**
 * maxspan within a segment (the events between the other cuts): the first event starts a
 * transaction, and so does each event more than maxspan after the current one's start. Each start
 * depends on the one before, which window functions cannot express, so each segment's times are
 * folded in a list (skipped when the segment fits within maxspan); events then find their start
 * with an ASOF join.
 */
function maxspanStages(b: StageBuilder, keys: string[], maxspanUs: number): void {
  const events = b.cur;
  const part = [...keys, '__seg'];
  const fold = `list_reduce(list([__t] ORDER BY __t), lambda acc, x: CASE WHEN x[1] - acc[-1] > ${maxspanUs} THEN list_concat(acc, x) ELSE acc END)`;
  const starts = `CASE WHEN max(__t) - min(__t) <= ${maxspanUs} THEN [min(__t)] ELSE ${fold} END`;
  b.push(
    `SELECT ${part.join(', ')}, unnest(${starts}) AS __start FROM ${events} GROUP BY ${part.map((_, i) => i + 1).join(', ')}`,
  );
  const on = [...part.map((k) => `e.${k} = s.${k}`), 'e.__t >= s.__start'].join(' AND ');
  b.push(`SELECT e.*, s.__start FROM ${events} AS e ASOF JOIN ${b.cur} AS s ON ${on}`);
}

function compileTransaction(n: TransactionPipe, b: StageBuilder): void {
  b.markMatched();
  if (b.schema.get('_time') !== 'time')
    throw pipeError(
      'transaction',
      'needs the event time _time, which an earlier pipe removed or made something else than a time',
    );
  checkDistinct(
    'transaction',
    [...n.fields, '_time', 'duration', 'eventcount', 'message'],
    'rename a field called _time, duration, eventcount or message first, as those are its own columns',
  );
  // the stages between keep only what they need, under names of their own: a user field may be called __t
  const keys = n.fields.map((_, i) => `__k${i}`);
  const cols = n.fields.map((f) => b.col(f));
  // the events' other fields that later pipes read (and the core ones), as Splunk's transaction keeps them
  const own = new Set(transactionOwn(n));
  const carried = [...new Set([...CARRIED_CORE, ...b.readLater])].filter((f) => b.schema.has(f) && !own.has(f));
  const carry = carried.map((_, i) => `__c${i}`);
  const where = ['_time IS NOT NULL', ...cols.map((c) => `${c.sql} IS NOT NULL`)];
  const select = [
    ...cols.map((c, i) => `${c.sql} AS ${keys[i]}`),
    'epoch_us(_time) AS __t',
    `${toStr(b.col('message'))} AS message`,
    ...carried.map((f, i) => `${toStr(b.col(f))} AS ${carry[i]}`),
  ];
  b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where.join(' AND ')}`);
  // the match runs on the message as text (an earlier eval may have made it a number)
  const flags = [
    ...(n.startswith ? [`${compileFilter(n.startswith)} AS __sw`] : []),
    ...(n.endswith ? [`${compileFilter(n.endswith)} AS __ew`] : []),
  ];
  if (flags.length) b.push(`SELECT *, ${flags.join(', ')} FROM ${b.cur}`);
  const w = `${keys.length ? `PARTITION BY ${keys.join(', ')} ` : ''}ORDER BY __t, message`;
  b.push(`SELECT *, (${startsSql(n)}) AS __new FROM ${b.cur} WINDOW w AS (${w})`);
  b.push(`SELECT *, sum(CAST(__new AS INTEGER)) OVER (${w} ROWS UNBOUNDED PRECEDING) AS __seg FROM ${b.cur}`);
  if (n.maxspan) maxspanStages(b, keys, parseSpan(n.maxspan)! * 1_000_000);
  const group = [...keys, '__seg', ...(n.maxspan ? ['__start'] : [])];
  const having = [...(n.startswith ? ['bool_or(__sw)'] : []), ...(n.endswith ? ['bool_or(__ew)'] : [])];
  const out = [
    ...keys.map((k, i) => `${k} AS ${ident(n.fields[i])}`),
    'make_timestamp(min(__t)) AS _time',
    '(max(__t) - min(__t)) / 1e6 AS duration',
    'count(*) AS eventcount',
    `array_to_string(min_by(message, (__t, message), ${MESSAGE_EVENTS}), chr(10)) AS message`,
    // one value stays one value; several become a multivalue of the distinct ones, sorted
    ...carry.map(
      (c, i) =>
        `CASE WHEN count(DISTINCT ${c}) > 1 THEN list_sort(list_distinct(list(${c}))) WHEN count(${c}) > 0 THEN [any_value(${c})] END AS ${ident(carried[i])}`,
    ),
  ];
  const schema: Schema = new Map<string, ColType>(n.fields.map((f, i) => [f, cols[i].type]));
  for (const [f, t] of [
    ['_time', 'time'],
    ['duration', 'num'],
    ['eventcount', 'num'],
    ['message', 'str'],
  ] as const)
    schema.set(f, t);
  for (const f of carried) schema.set(f, 'list');
  b.push(
    `SELECT ${out.join(', ')} FROM ${b.cur} GROUP BY ${group.join(', ')}${having.length ? ` HAVING ${having.join(' AND ')}` : ''}`,
    schema,
  );
  b.order = [{ sql: '_time', desc: true, cols: ['_time'] }, ...ascending(n.fields)];
  b.mode = 'table';
}

export const transactionPipe: PipeDef<TransactionPipe> = {
  name: 'transaction',
  doc: doc(
    'transaction [<field>, …] [maxspan=<span>] [maxpause=<span>] [startswith=<term>] [endswith=<term>] [connected=<bool>]',
    'Groups the events sharing the fields into transactions (cut at maxspan, maxpause, a startswith or after an endswith event), one row each with _time, duration, eventcount and the messages.',
    '* | transaction session maxpause=5m startswith="logged in" endswith="logged out"',
  ),
  parse: parseTransaction,
  print: printTransaction,
  reads: (n) => [...n.fields, '_time', 'message'],
  writes: () => 'all',
  carries: transactionOwn,
  compile: compileTransaction,
};
