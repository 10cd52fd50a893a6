import { doc } from '../doc.js';
import { describe, printIdent } from '../lexer.js';
import { compileExpr, exprFields, parseExpr, printExpr, type Expr } from '../expr/expr.js';
import type { Parser } from '../parser-api.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `fieldformat <field>=<expr>` (Splunk's fieldformat): how a field's values show, not what they
 * are. Splunk keeps the value and renders the format only for display; svc answers with JSON
 * values, so it computes the expression once, over the final rows, after the last pipe: every pipe
 * after fieldformat (where, sort, stats, eval) reads the value unformatted, and the rows keep the
 * order those pipes gave them. The last format of a field wins; a field the final rows lack is not
 * formatted. Not applied where the values are written rather than shown (a search with
 * outputlookup, as Splunk's export keeps the values), nor inside a subsearch (its rows are data
 * for the outer search), nor after timechart or chart (their columns are pivoted after the
 * statement, so the format is refused there).
 */
export interface FieldformatPipe {
  kind: 'fieldformat';
  field: string;
  expr: Expr;
}

function formattedName(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind !== 'string') return p.fieldName('a field name to format');
  p.next('expr');
  if (t.text === '') throw p.fail('missing text inside the field name ""', t);
  return t.text;
}

export const fieldformatPipe: PipeDef<FieldformatPipe> = {
  name: 'fieldformat',
  doc: doc(
    'fieldformat <field>=<expr>',
    'Sets how a field shows in the answer (computed once over the final rows), while every later pipe reads its value unformatted.',
    '* | stats sum(bytes) as total by host | fieldformat total=tostring(total, "commas")',
  ),
  parse(p) {
    const field = formattedName(p);
    const eq = p.peek('expr');
    if (eq.kind !== 'op' || eq.text !== '=')
      throw p.fail(`unexpected ${describe(eq)}: missing "=" after "${field}"`, eq);
    p.next('expr');
    const expr = parseExpr(p);
    const comma = p.peek('expr');
    if (comma.kind === 'op' && comma.text === ',')
      throw p.fail('fieldformat formats one field: write one fieldformat per field', comma);
    return { kind: 'fieldformat', field, expr };
  },
  print: (n) => `fieldformat ${printIdent(n.field)}=${printExpr(n.expr)}`,
  reads: (n) => exprFields(n.expr),
  writes: () => [],
  compile(n, b) {
    b.formats.delete(n.field);
    b.formats.set(n.field, (schema) => compileExpr(n.expr, { schema, nowMs: b.nowMs }));
  },
};

/**
 * After the last pipe of the main query: the formats of the fields the final rows have, computed
 * in one stage. When the rows' order reads a formatted column, the rows are numbered first so the
 * order stays that of the values (`sort - total | fieldformat total=tostring(total, "commas")`).
 */
export function applyFormats(b: StageBuilder, writes: boolean): void {
  const formats = [...b.formats].filter(([name]) => b.schema.has(name));
  if (formats.length === 0 || writes) return;
  if (b.timechart)
    throw pipeError(
      'fieldformat',
      'cannot format the columns of a timechart or chart, which are pivoted after the search; use eval before it',
    );
  const names = new Set(formats.map(([name]) => name));
  const ord = b.order.some((k) => k.cols.some((c) => names.has(c)))
    ? `, row_number() OVER (${b.orderBy().trim()}) AS __ord`
    : '';
  if (ord) b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
  const schema = new Map(b.schema);
  const replaced = formats.map(([name, compileFormat]) => {
    const c = compileFormat(b.schema);
    schema.set(name, c.type);
    return `${c.sql} AS ${ident(name)}`;
  });
  b.push(`SELECT * REPLACE (${replaced.join(', ')})${ord} FROM ${b.cur}`, schema);
}
