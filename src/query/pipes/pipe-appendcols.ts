import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import type { Parser, Subquery } from '../parser-api.js';
import { unify } from '../expr/coerce.js';
import type { ColRef, Schema } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { JOIN_SUBSEARCH_MAX_ROWS } from './pipe-join.js';
import type { PipeDef } from './pipe.js';

/**
 * `appendcols [override=<bool>] [search <query>]` (Splunk's appendcols): the subsearch's first row
 * joins the first row, its second the second, and so on, each row in its side's order; a
 * subsearch row past the last row becomes a row of its own. A field both rows have keeps the
 * row's value (override=true: the subsearch's), and takes the other's where it has none. The
 * subsearch's internal fields (`_time`…) are not added, as in Splunk. The subsearch reads the same
 * events as the main search (as append's does) and gives at most JOIN_SUBSEARCH_MAX_ROWS rows.
 */
export interface AppendcolsPipe {
  kind: 'appendcols';
  override: boolean;
  sub: Subquery;
}

const REFUSED: Record<string, string> = {
  maxtime: 'svc bounds a search by its own timeout',
  maxout: `svc takes the subsearch's first ${JOIN_SUBSEARCH_MAX_ROWS} rows`,
  timeout: 'svc bounds a search by its own timeout',
};

function parseAppendcols(p: Parser): AppendcolsPipe {
  let override: boolean | undefined;
  for (;;) {
    const t = p.peek('search');
    if (t.kind === 'word' && t.text.startsWith('[')) break;
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|'))
      throw p.unexpected(t, 'missing the subsearch in [brackets]');
    p.next('search');
    const name = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (Object.hasOwn(REFUSED, name)) throw p.fail(`appendcols ${name}= is not supported: ${REFUSED[name]}`, t);
    if (name !== 'override' || !p.acceptOp('=', 'search'))
      throw p.unexpected(t, 'appendcols takes override= and then the subsearch in [brackets]');
    if (override !== undefined) throw p.fail(`${describe(t)} is given twice`, t);
    const v = p.next('search');
    const value = v.kind === 'word' ? v.text.toLowerCase() : '';
    if (!['true', 't', 'false', 'f'].includes(value))
      throw p.fail(`unexpected ${describe(v)}: missing true or false after "override="`, v);
    override = value.startsWith('t');
  }
  return { kind: 'appendcols', override: override ?? false, sub: p.subquery('subsearch') };
}

function compileAppendcols(n: AppendcolsPipe, b: StageBuilder): void {
  if (!b.subquery) throw new Error('BUG: appendcols outside compile()');
  const sub = b.subquery(n.sub);
  const schema: Schema = new Map();
  const cols: string[] = [];
  const theirs = [...sub.schema].filter(([name]) => !name.startsWith('_'));
  for (const [name, type] of b.schema) {
    const other = theirs.find(([k]) => k === name);
    if (!other) {
      cols.push(`l.${ident(name)}`);
      schema.set(name, type);
      continue;
    }
    const own: ColRef = { sql: `l.${ident(name)}`, type };
    const their: ColRef = { sql: `r.${ident(name)}`, type: other[1] };
    const u = unify(n.override ? [their, own] : [own, their]);
    cols.push(`coalesce(${u.sqls.join(', ')}) AS ${ident(name)}`);
    schema.set(name, u.type);
  }
  for (const [name, type] of theirs) {
    if (schema.has(name)) continue;
    cols.push(`r.${ident(name)}`);
    schema.set(name, type);
  }
  if (schema.has('__ord') || schema.has('__al') || schema.has('__ar'))
    throw pipeError('appendcols', 'a column may not be named __ord, __al or __ar');
  const left = `SELECT *, row_number() OVER (${b.orderBy().trim()}) AS __al FROM ${b.cur}`;
  const capped = `SELECT * FROM ${sub.cur}${sub.orderBy()} LIMIT ${JOIN_SUBSEARCH_MAX_ROWS}`;
  const right = `SELECT *, row_number() OVER (${sub.orderBy().trim()}) AS __ar FROM (${capped}) AS __s`;
  b.push(
    `SELECT ${cols.join(', ')}, coalesce(l.__al, r.__ar) AS __ord FROM (${left}) AS l FULL OUTER JOIN (${right}) AS r ON l.__al = r.__ar`,
    schema,
  );
  b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
  if (sub.mode === 'table') b.mode = 'table';
}

/** The pipe, given how to print a subquery in brackets (the registry's printers; see append). */
export function appendcolsPipeWith(printSub: (q: Subquery) => string): PipeDef<AppendcolsPipe> {
  return {
    name: 'appendcols',
    doc: doc(
      'appendcols [override=<bool>] [search <query>]',
      "Adds the fields of the subsearch's n-th row to the n-th row; a field both have keeps the row's value unless override=true.",
      'status>=500 | stats count as errors | appendcols [search * | stats count as total] | eval pct=round(100 * errors / total, 1)',
    ),
    parse: parseAppendcols,
    print: (n) => `appendcols ${n.override ? 'override=true ' : ''}${printSub(n.sub)}`,
    // the subquery reads the events themselves: compile.ts's readFields adds its fields
    reads: () => [],
    writes: () => [],
    compile: compileAppendcols,
  };
}
