import { doc } from '../doc.js';
import { quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { ColRef, Schema } from '../schema.js';
import { asText, ident } from '../sql.js';
import { checkDistinct, pipeError, type StageBuilder } from '../stages.js';
import type { LookupCatalog, LookupTable } from '../lookup-catalog.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/** A column of the table and the event field it stands for (`uid as user_id`; the same name without `as`). */
export interface LookupPair {
  column: string;
  field: string;
}

/**
 * `lookup <table> <column> [as <field>][, …] [output|outputnew <column> [as <field>][, …]]`: adds
 * to each event the columns of the row of an uploaded CSV table (docs/lookups.md) whose match
 * columns equal the event's fields, compared as text, case-sensitively. `output` (and no clause:
 * every column but the matched ones) sets the fields, to null when no row matches; `outputnew`
 * only fills fields the event does not have. Of rows with the same key, the first in the CSV wins.
 */
export interface LookupPipe {
  kind: 'lookup';
  table: string;
  match: LookupPair[];
  output?: { mode: 'output' | 'outputnew'; pairs: LookupPair[] };
}

/** Table names as admins may give them (control/envs.ts checkName), `_` let through to be reported as unknown. */
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** Words a bare name cannot be in a lookup's lists: they end or split them. */
const KEYWORDS = new Set(['as', 'output', 'outputnew']);

function parseTable(p: Parser): string {
  const t = p.peek('search');
  if (t.kind !== 'word' || !TABLE_NAME.test(t.text)) throw p.unexpected(t, 'missing the name of a lookup table');
  p.next('search');
  return t.text;
}

/** `a [as b][, c [as d]]…`: the names come as runs cut by `as`, the first of each later run being an alias. */
function parsePairs(p: Parser, what: string, stop: string[]): LookupPair[] {
  const pairs: LookupPair[] = [];
  const add = (names: string[]) => names.forEach((name) => pairs.push({ column: name, field: name }));
  const at = p.peek('search');
  add(
    names(
      p,
      at,
      p.listItems(what, { stop: ['as', ...stop] }).map((i) => i.name),
    ),
  );
  let aliased = false;
  while (p.peek('expr').kind === 'ident' && p.peek('expr').raw.toLowerCase() === 'as') {
    const as = p.peek('expr');
    if (aliased) throw p.unexpected(as, 'a column takes one "as"');
    p.next('expr');
    const run = names(
      p,
      p.peek('search'),
      p.listItems('a field name after "as"', { stop: ['as', ...stop] }).map((i) => i.name),
    );
    pairs[pairs.length - 1].field = run[0];
    add(run.slice(1));
    aliased = run.length === 1;
  }
  return pairs;
}

function names(p: Parser, at: ReturnType<Parser['peek']>, list: string[]): string[] {
  const wild = list.find((n) => n.includes('*'));
  if (wild !== undefined) throw p.fail(`lookup takes field names without wildcards, not ${JSON.stringify(wild)}`, at);
  return list;
}

function parseLookup(p: Parser): LookupPipe {
  const table = parseTable(p);
  const match = parsePairs(p, 'a column of the table to match on', ['output', 'outputnew']);
  const kw = p.peek('expr');
  const mode = kw.kind === 'ident' ? kw.raw.toLowerCase() : '';
  if (mode !== 'output' && mode !== 'outputnew') {
    if (!p.atPipeEnd()) throw p.unexpected(kw, 'after the match columns (want "output", "outputnew" or "|")');
    return { kind: 'lookup', table, match };
  }
  p.next('expr');
  return { kind: 'lookup', table, match, output: { mode, pairs: parsePairs(p, `a column after "${mode}"`, []) } };
}

function printName(name: string): string {
  return KEYWORDS.has(name.toLowerCase()) ? quoteString(name) : printListName(name);
}

function printPairs(pairs: LookupPair[]): string {
  return pairs
    .map((x) => (x.column === x.field ? printName(x.column) : `${printName(x.column)} as ${printName(x.field)}`))
    .join(', ');
}

// ---- compiling ----

function tableOf(n: LookupPipe, lookups: LookupCatalog | undefined): LookupTable {
  const t = lookups?.table(n.table);
  if (!t)
    throw pipeError('lookup', `unknown lookup table "${n.table}" (an admin uploads tables under Admin → Lookups)`);
  return t;
}

/** Throws invalid_query naming the first table of `pipes`' lookups that `lookups` does not have. */
export function checkLookupTables(pipes: readonly { kind: string }[], lookups: LookupCatalog | undefined): void {
  for (const p of pipes) if (p.kind === 'lookup') tableOf(p as LookupPipe, lookups);
}

/** The table's SQL column for `name`, or an error listing the columns it has. */
function columnOf(t: LookupTable, name: string): string {
  const c = t.columns.find((x) => x.name === name);
  if (!c)
    throw pipeError(
      'lookup',
      `table "${t.name}" has no column "${name}" (its columns: ${t.columns.map((x) => x.name).join(', ')})`,
    );
  return c.sql;
}

/**
 * An event's value as the text a CSV cell holds: a whole number stored as a DOUBLE (a field that
 * also held fractions) is written without `.0`, as the answers show it, so `200.0` finds `200`.
 */
export function keyText(r: ColRef): string {
  if (r.type === 'str') return r.sql;
  if (r.type !== 'num' && r.type !== 'any') return asText(r.sql);
  const d = `TRY_CAST(${r.sql} AS DOUBLE)`;
  return `CASE WHEN typeof(${r.sql}) IN ('DOUBLE', 'FLOAT') AND ${d} = trunc(${d}) AND abs(${d}) < 1e15 THEN CAST(CAST(${d} AS BIGINT) AS VARCHAR) ELSE ${asText(r.sql)} END`;
}

/** `outputnew`: the event's own value when it has one, in its type where the compiler knows it. */
function keepOwn(own: ColRef, found: string): { sql: string; type: ColRef['type'] } {
  switch (own.type) {
    case 'str':
      return { sql: `coalesce(${own.sql}, ${found})`, type: 'str' };
    case 'num':
      return { sql: `coalesce(${own.sql}, TRY_CAST(${found} AS DOUBLE))`, type: 'num' };
    case 'bool':
      return { sql: `coalesce(${own.sql}, TRY_CAST(${found} AS BOOLEAN))`, type: 'bool' };
    default:
      // a user field of unknown storage type (or a list): both as text
      return { sql: `coalesce(${asText(own.sql)}, ${found})`, type: 'any' };
  }
}

/**
 * One stage: the events LEFT JOINed to the table's rows, first row per key (so each event meets at
 * most one row: the events keep their count, and their order, which the stage does not touch).
 */
function compileLookup(n: LookupPipe, b: StageBuilder): void {
  const t = tableOf(n, b.lookups);
  const keys = n.match.map((m) => ({ sql: columnOf(t, m.column), field: m.field }));
  const matched = new Set(n.match.map((m) => m.column));
  const outs = n.output
    ? n.output.pairs.map((o) => ({ sql: columnOf(t, o.column), field: o.field }))
    : t.columns.filter((c) => !matched.has(c.name)).map((c) => ({ sql: c.sql, field: c.name }));
  if (outs.length === 0) return;
  checkDistinct(
    'lookup',
    outs.map((o) => o.field),
    'name an output with "as"',
  );
  if (outs.some((o) => o.field === '_time'))
    throw pipeError('lookup', 'cannot write the event time _time: name the output with "as"');
  const own = outs.find((o) => o.field.startsWith('__'));
  if (own)
    throw pipeError(
      'lookup',
      `cannot write "${own.field}": names starting with "__" are svc's own; name the output with "as"`,
    );
  const event = (f: string): ColRef =>
    b.schema.has(f) ? { sql: `e.${ident(f)}`, type: b.schema.get(f)! } : { sql: 'NULL', type: 'any' };
  const rows =
    `SELECT ${[...keys.map((k, i) => `${k.sql} AS __lookup_k${i}`), ...outs.map((o, i) => `${o.sql} AS __lookup_o${i}`)].join(', ')} ` +
    `FROM ${t.relation} WHERE ${keys.map((k) => `${k.sql} IS NOT NULL`).join(' AND ')} ` +
    `QUALIFY row_number() OVER (PARTITION BY ${keys.map((k) => k.sql).join(', ')} ORDER BY ${t.rowSql}) = 1`;
  const on = keys.map((k, i) => `__lookup.__lookup_k${i} = ${keyText(event(k.field))}`).join(' AND ');
  const schema: Schema = new Map(b.schema);
  const replaced: string[] = [];
  const added: string[] = [];
  outs.forEach((o, i) => {
    const found = `__lookup.__lookup_o${i}`;
    const v =
      n.output?.mode === 'outputnew' && b.schema.has(o.field)
        ? keepOwn(event(o.field), found)
        : { sql: found, type: 'any' as const };
    (b.schema.has(o.field) ? replaced : added).push(`${v.sql} AS ${ident(o.field)}`);
    schema.set(o.field, v.type);
  });
  // an order that reads a replaced column survives as a row number (`__ord`)
  const ord = b.keepOrder(new Set(['__ord', ...[...b.schema.keys()].filter((k) => !outs.some((o) => o.field === k))]));
  const star = replaced.length ? `e.* REPLACE (${replaced.join(', ')})` : 'e.*';
  b.push(
    `SELECT ${[star, ...added].join(', ')}${ord} FROM ${b.cur} AS e LEFT JOIN (${rows}) AS __lookup ON ${on}`,
    schema,
  );
}

export const lookupPipe: PipeDef<LookupPipe> = {
  name: 'lookup',
  doc: doc(
    'lookup <table> <column> [as <field>][, …] [output|outputnew <column> [as <field>][, …]]',
    "Adds the columns of an uploaded CSV table's matching row to each event (match compared as text, case-sensitively); outputnew only fills fields the event lacks.",
    '* | lookup users uid as user_id output name as user_name, team',
  ),
  parse: parseLookup,
  print: (n) =>
    `lookup ${n.table} ${printPairs(n.match)}${n.output ? ` ${n.output.mode} ${printPairs(n.output.pairs)}` : ''}`,
  reads: (n) => [
    ...n.match.map((m) => m.field),
    ...(n.output?.mode === 'outputnew' ? n.output.pairs.map((o) => o.field) : []),
  ],
  // without an output clause the names are the table's, known only when compiling
  writes: (n) => (n.output ? n.output.pairs.map((o) => o.field) : []),
  compile: compileLookup,
};
