import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { LookupCatalog, LookupTable } from '../lookup-catalog.js';
import type { Schema } from '../schema.js';
import { compileSearch, printSearch, type SearchNode } from '../search/filter-logic.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import type { PipeDef } from './pipe.js';
import { messageNode, timeNode } from './pipe-search.js';

/**
 * `| inputlookup [append=<bool>] [start=N] [max=N] <table> [where <search expression>]` (Splunk's
 * inputlookup): the rows of an uploaded lookup table (docs/lookups.md), in the CSV's order, as a
 * table of its columns (text, empty cells no value). It starts a search (`| inputlookup users`,
 * the events and time range are not read), or with `append=true` adds its rows after the current
 * ones. `where` filters the rows with the search part's grammar over the columns (field
 * comparisons; no search terms, there is no message). `start` skips the first N rows (0-based),
 * `max` keeps at most N. A name ending `.csv` that no table has names the table without it.
 */
export interface InputlookupPipe {
  kind: 'inputlookup';
  table: string;
  append: boolean;
  /** Written first, after a leading `|` (a generating command); else it follows other pipes with append=true. */
  leading: boolean;
  start?: number;
  max?: number;
  where?: SearchNode;
}

/** Table names as admins may give them (control/envs.ts checkName), `_` let through to be reported as unknown. */
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const OPTIONS = ['append', 'start', 'max'];

function parseInputlookup(p: Parser, cmd: Parameters<PipeDef<InputlookupPipe>['parse']>[1]): InputlookupPipe {
  const n: InputlookupPipe = { kind: 'inputlookup', table: '', append: false, leading: p.leading(cmd) };
  const given = new Set<string>();
  const options = () => {
    for (;;) {
      const t = p.peek('search');
      if (t.kind !== 'word' || !OPTIONS.includes(t.text.toLowerCase())) return;
      p.next('search');
      if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${t.text}"`);
      const name = t.text.toLowerCase();
      if (given.has(name)) throw p.fail(`${describe(t)} is given twice`, t);
      given.add(name);
      const v = p.next('search');
      const value = v.kind === 'word' ? v.text.toLowerCase() : '';
      if (name === 'append') {
        if (!['true', 't', 'false', 'f'].includes(value))
          throw p.fail(`unexpected ${describe(v)}: missing true or false after "append="`, v);
        n.append = value.startsWith('t');
      } else {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
          throw p.fail(`unexpected ${describe(v)}: missing a whole number after "${name}="`, v);
        if (name === 'start') n.start = Number(value);
        else n.max = Number(value);
      }
    }
  };
  options();
  const t = p.peek('search');
  if (t.kind !== 'word' || !TABLE_NAME.test(t.text) || t.text.toLowerCase() === 'where')
    throw p.unexpected(t, 'missing the name of a lookup table');
  p.next('search');
  n.table = t.text;
  options();
  const w = p.peek('search');
  if (w.kind === 'word' && w.text.toLowerCase() === 'where') {
    p.next('search');
    if (p.atPipeEnd()) throw p.unexpected(p.peek('search'), 'missing a search expression after "where"');
    n.where = p.parseSearch();
    const b = messageNode(n.where) ?? timeNode(n.where);
    if (b)
      throw p.fail(`inputlookup … where compares the table's columns (column=value); ${printSearch(b)} is not one`, w);
  }
  if (!n.append && !n.leading)
    throw p.fail(
      'inputlookup starts a search ("| inputlookup <table>" with nothing before it), or adds its rows with append=true',
      cmd,
    );
  return n;
}

function printInputlookup(n: InputlookupPipe): string {
  const opts = [
    n.append && !n.leading ? 'append=true' : '',
    n.start !== undefined ? `start=${n.start}` : '',
    n.max !== undefined ? `max=${n.max}` : '',
  ].filter(Boolean);
  return `inputlookup ${[...opts, n.table].join(' ')}${n.where ? ` where ${printSearch(n.where)}` : ''}`;
}

/** The table a name stands for: itself, else without a `.csv` Splunk users write after it. */
export function lookupTableNamed(lookups: LookupCatalog | undefined, name: string, pipe: string): LookupTable {
  const t = lookups?.table(name) ?? (/\.csv$/i.test(name) ? lookups?.table(name.slice(0, -4)) : undefined);
  if (!t) throw pipeError(pipe, `unknown lookup table "${name}" (an admin uploads tables under Admin → Lookups)`);
  return t;
}

function compileInputlookup(n: InputlookupPipe, b: StageBuilder): void {
  const t = lookupTableNamed(b.lookups, n.table, 'inputlookup');
  const schema: Schema = new Map(t.columns.map((c) => [c.name, 'any']));
  const named = `SELECT ${t.columns.map((c) => `${c.sql} AS ${ident(c.name)}`).join(', ')}, ${t.rowSql} AS __row FROM ${t.relation}`;
  const where = n.where ? ` WHERE ${compileSearch(n.where, schema, b.nowMs)}` : '';
  const offset = n.start ? ` OFFSET ${n.start}` : '';
  const limit = n.max !== undefined || offset ? ` LIMIT ${n.max ?? 'ALL'}` : '';
  const rows = `SELECT * FROM (${named})${where} ORDER BY __row${limit}${offset}`;
  const cols = [...schema.keys()].map(ident).join(', ');
  if (n.leading || !n.append) {
    b.push(`SELECT ${cols}, row_number() OVER (ORDER BY __row) AS __ord FROM (${rows})`, schema);
    b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
    b.mode = 'table';
    return;
  }
  // after the current rows, as append's subsearch rows
  const merged = new Map(b.schema);
  for (const [name] of schema) if (!merged.has(name)) merged.set(name, 'any');
  const mine = `SELECT ${[...b.schema.keys()].map(ident).join(', ')}, row_number() OVER (${b.orderBy().trim()}) AS __ord FROM ${b.cur}`;
  const theirs = `SELECT ${cols}, 1000000000000 + row_number() OVER (ORDER BY __row) AS __ord FROM (${rows})`;
  // a column both have keeps one type: text where the current rows' type is not text
  const cast = [...schema.keys()].filter(
    (k) => b.schema.has(k) && b.schema.get(k) !== 'str' && b.schema.get(k) !== 'any',
  );
  for (const k of cast) merged.set(k, 'any');
  const mineCast = cast.length
    ? `SELECT * REPLACE (${cast.map((k) => `CAST(${ident(k)} AS VARCHAR) AS ${ident(k)}`).join(', ')}) FROM (${mine})`
    : mine;
  b.push(`${mineCast} UNION ALL BY NAME ${theirs}`, merged);
  b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
  b.mode = 'table';
}

export const inputlookupPipe: PipeDef<InputlookupPipe> = {
  name: 'inputlookup',
  doc: doc(
    'inputlookup [append=<bool>] [start=<N>] [max=<N>] <table> [where <search expression>] (after a leading "|")',
    'Starts a search with the rows of an uploaded lookup table (or adds them with append=true); where filters them by their columns.',
    '| inputlookup users where team=core',
  ),
  parse: parseInputlookup,
  print: printInputlookup,
  // where reads the table's columns, not the events'
  reads: () => [],
  writes: () => 'all',
  compile: compileInputlookup,
  generating: (n) => n.leading,
};
