import { doc } from '../doc.js';
import { describe, printIdent } from '../lexer.js';
import { compileExpr, exprFields, parseExpr, printExpr, type Expr } from '../expr/expr.js';
import { pipeError } from '../stages.js';
import { toTime } from '../expr/coerce.js';
import type { PipeDef } from './pipe.js';
import type { Parser } from '../parser-api.js';

/** `eval name=<expr>[, name=<expr>]`: computes fields in order; a later one may use an earlier one. */
export interface EvalPipe {
  kind: 'eval';
  assignments: { name: string; expr: Expr }[];
}

/** The field an assignment sets: a name, `'quoted name'` or, as Splunk also reads it, `"quoted name"`. */
function assignedName(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind !== 'string') return p.fieldName('a field name to assign');
  p.next('expr');
  if (t.text === '') throw p.fail('missing text inside the field name ""', t);
  return t.text;
}

export const evalPipe: PipeDef<EvalPipe> = {
  name: 'eval',
  doc: doc(
    'eval <field>=<expr>[, <field>=<expr>…]',
    'Computes fields from expressions, left to right, so a later one may use an earlier one.',
    '* | eval kb=bytes / 1024, big=if(kb > 100, "yes", "no")',
  ),
  parse(p) {
    const assignments: EvalPipe['assignments'] = [];
    do {
      const name = assignedName(p);
      const eq = p.peek('expr');
      if (eq.kind !== 'op' || eq.text !== '=')
        throw p.fail(`unexpected ${describe(eq)}: missing "=" after "${name}"`, eq);
      p.next('expr');
      assignments.push({ name, expr: parseExpr(p) });
    } while (p.acceptOp(',', 'expr'));
    return { kind: 'eval', assignments };
  },
  print: (n) => `eval ${n.assignments.map((a) => `${printIdent(a.name)}=${printExpr(a.expr)}`).join(', ')}`,
  reads: (n) => {
    const defined = new Set<string>();
    const out: string[] = [];
    for (const a of n.assignments) {
      out.push(...exprFields(a.expr).filter((f) => !defined.has(f)));
      defined.add(a.name);
    }
    return out;
  },
  writes: (n) => n.assignments.map((a) => a.name),
  compile(n, b) {
    for (const a of n.assignments) {
      const c = compileExpr(a.expr, { schema: b.schema, nowMs: b.nowMs });
      if (a.name !== '_time') {
        b.setColumns([{ name: a.name, sql: c.sql, type: c.type }]);
        continue;
      }
      // _time stays a time: timechart, sort and the answer's "time" depend on it
      const t = toTime(c);
      if (t === undefined)
        throw pipeError(
          'eval',
          `_time takes a time, epoch seconds or a time text, not a ${c.type === 'bool' ? 'boolean' : 'list'}`,
        );
      b.setColumns([{ name: '_time', sql: t, type: 'time' }]);
    }
  },
};
