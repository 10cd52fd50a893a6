import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import type { Parser, Subquery } from '../parser-api.js';
import { toStr } from '../expr/coerce.js';
import type { ColRef, ColType, Schema } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { BARE_LIST_NAME, printListNames } from './field-names.js';
import { keyText } from './pipe-lookup.js';
import type { PipeDef } from './pipe.js';

/**
 * Rows a join's subsearch contributes at most, the first in its order (Splunk's `subsearch_maxout`
 * default for join): past it the rest are dropped, as Splunk drops them.
 */
export const JOIN_SUBSEARCH_MAX_ROWS = 50_000;

/**
 * `join [type=inner|left|outer] [max=N] [overwrite=<bool>] [<field>[, <field>…]] [search <query>]`
 * (Splunk's join): each row meets the subsearch's rows whose fields equal its own (compared as
 * text, case-sensitively, as Splunk's join does), at most `max` of them (default 1, 0: all) in the
 * subsearch's order. `inner` (the default) drops rows that meet none; `left` (= `outer`) keeps them.
 * A field both sides have takes the subsearch's value unless it has none (`overwrite=false`: the
 * row's own value wins). Without fields, the fields both sides have are the keys. The subsearch
 * reads the same events as the main search (as append's does) and gives at most
 * JOIN_SUBSEARCH_MAX_ROWS rows.
 */
export interface JoinPipe {
  kind: 'join';
  type: 'inner' | 'left';
  max: number;
  overwrite: boolean;
  fields: string[];
  sub: Subquery;
}

const OPTIONS = new Set(['type', 'max', 'overwrite']);

function parseJoinWith(p: Parser): JoinPipe {
  const n: Omit<JoinPipe, 'sub'> = { kind: 'join', type: 'inner', max: 1, overwrite: true, fields: [] };
  const given = new Set<string>();
  for (;;) {
    const t = p.peek('search');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|'))
      throw p.unexpected(t, 'missing the subsearch in [brackets]');
    if (t.kind === 'word' && t.text.startsWith('[')) break;
    p.next('search');
    const name = t.text.toLowerCase();
    if (t.kind === 'word' && OPTIONS.has(name) && p.acceptOp('=', 'search')) {
      if (given.has(name)) throw p.fail(`${describe(t)} is given twice`, t);
      given.add(name);
      const v = p.next('search');
      const value = v.kind === 'word' || v.kind === 'string' ? v.text.toLowerCase() : '';
      if (name === 'type') {
        if (value !== 'inner' && value !== 'left' && value !== 'outer')
          throw p.fail(`unexpected ${describe(v)}: join type is inner, left or outer`, v);
        n.type = value === 'inner' ? 'inner' : 'left';
      } else if (name === 'max') {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
          throw p.fail(`unexpected ${describe(v)}: missing a whole number after "max=" (0: no limit)`, v);
        n.max = Number(value);
      } else {
        if (!['true', 't', 'false', 'f'].includes(value))
          throw p.fail(`unexpected ${describe(v)}: missing true or false after "overwrite="`, v);
        n.overwrite = value.startsWith('t');
      }
      continue;
    }
    if (t.kind === 'word' && /^(usetime|earlier)$/i.test(t.text) && p.peek('search').text === '=')
      throw p.fail(`join ${name}= is not supported`, t);
    const names = t.kind === 'string' ? [t.text] : t.kind === 'word' ? t.text.split(',').filter(Boolean) : [];
    if (t.kind === 'word' && names.length === 0 && t.text !== ',') throw p.unexpected(t, 'missing a field name');
    for (const f of names)
      if (f === '' || f.includes('*') || (t.kind === 'word' && !BARE_LIST_NAME.test(f)))
        throw p.fail(`unexpected ${JSON.stringify(f)}: join takes field names without wildcards`, t);
    if (t.kind !== 'word' && t.kind !== 'string') throw p.unexpected(t, 'missing a field name or the subsearch');
    n.fields.push(...names);
  }
  return { ...n, sub: p.subquery('subsearch') };
}

/** Both sides' values of a field both have, as one SQL expression and type. */
function merged(own: ColRef, theirs: ColRef, overwrite: boolean): { sql: string; type: ColType } {
  const same = own.type === theirs.type && own.type !== 'list';
  const [a, b] = same ? [own.sql, theirs.sql] : [toStr(own), toStr(theirs)];
  return { sql: overwrite ? `coalesce(${b}, ${a})` : `coalesce(${a}, ${b})`, type: same ? own.type : 'any' };
}

function compileJoin(n: JoinPipe, b: StageBuilder): void {
  if (!b.subquery) throw new Error('BUG: join outside compile()');
  const sub = b.subquery(n.sub);
  const keys = n.fields.length ? n.fields : [...b.schema.keys()].filter((k) => sub.schema.has(k));
  if (keys.length === 0)
    throw pipeError('join', 'the rows and the subsearch have no field in common: name the fields to join on');
  const keySet = new Set(keys);
  const side = (alias: string, schema: Schema, f: string): ColRef =>
    schema.has(f) ? { sql: `${alias}.${ident(f)}`, type: schema.get(f)! } : { sql: 'NULL', type: 'any' };
  const on = keys.map((k) => `${keyText(side('l', b.schema, k))} = ${keyText(side('r', sub.schema, k))}`);
  if (n.max > 0) on.push(`r.__jr <= ${n.max}`);
  const schema: Schema = new Map();
  const cols: string[] = [];
  for (const [name, type] of b.schema) {
    if (keySet.has(name) || !sub.schema.has(name)) {
      cols.push(`l.${ident(name)}`);
      schema.set(name, type);
      continue;
    }
    const m = merged(side('l', b.schema, name), side('r', sub.schema, name), n.overwrite);
    cols.push(`${m.sql} AS ${ident(name)}`);
    schema.set(name, m.type);
  }
  for (const [name, type] of sub.schema) {
    if (schema.has(name) || keySet.has(name)) continue;
    cols.push(`r.${ident(name)}`);
    schema.set(name, type);
  }
  if (schema.has('__ord')) throw pipeError('join', 'a column may not be named __ord');
  const partition = keys.map((k) => keyText(side('__s', sub.schema, k))).join(', ');
  const left = `SELECT *, row_number() OVER (${b.orderBy().trim()}) AS __jl FROM ${b.cur}`;
  const capped = `SELECT * FROM ${sub.cur}${sub.orderBy()} LIMIT ${JOIN_SUBSEARCH_MAX_ROWS}`;
  const right = `SELECT *, row_number() OVER (PARTITION BY ${partition}${sub.orderBy()}) AS __jr FROM (${capped}) AS __s`;
  b.push(
    `SELECT ${cols.join(', ')}, row_number() OVER (ORDER BY l.__jl, r.__jr) AS __ord ` +
      `FROM (${left}) AS l ${n.type === 'inner' ? 'INNER' : 'LEFT'} JOIN (${right}) AS r ON ${on.join(' AND ')}`,
    schema,
  );
  b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
}

/**
 * The pipe, given how to print a subquery in brackets (the registry's printers; see append).
 */
export function joinPipeWith(printSub: (q: Subquery) => string): PipeDef<JoinPipe> {
  return {
    name: 'join',
    doc: doc(
      'join [type=inner|left|outer] [max=<N>] [overwrite=<bool>] <field>[, <field>…] [search <query>]',
      "Adds to each row the fields of the subsearch's first row (or first max=N rows) with equal values of the fields; inner drops rows without one, left keeps them.",
      'status>=500 | stats count as errors by host | join type=left host [search * | stats count as total by host]',
    ),
    parse: parseJoinWith,
    print: (n) =>
      `join ${n.type === 'inner' ? '' : 'type=left '}${n.max !== 1 ? `max=${n.max} ` : ''}${n.overwrite ? '' : 'overwrite=false '}${n.fields.length ? `${printListNames(n.fields)} ` : ''}${printSub(n.sub)}`,
    // the subquery reads the events themselves: compile.ts's readFields adds its fields
    reads: (n) => (n.fields.length ? n.fields : '*'),
    writes: () => [],
    compile: compileJoin,
  };
}
