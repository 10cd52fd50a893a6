import { doc } from '../doc.js';
import { toBool } from '../expr/coerce.js';
import { compileExpr, exprFields, parseExpr, printExpr, type Expr } from '../expr/expr.js';
import type { PipeDef } from './pipe.js';

/** `where <expr>`: keeps the rows for which the expression is true (null counts as false). */
export interface WherePipe {
  kind: 'where';
  expr: Expr;
}

export const wherePipe: PipeDef<WherePipe> = {
  name: 'where',
  doc: doc(
    'where <expr>',
    'Keeps the rows for which the expression is true; null counts as false.',
    '* | where status >= 500 AND len(host) > 3',
  ),
  parse: (p) => ({ kind: 'where', expr: parseExpr(p) }),
  print: (n) => `where ${printExpr(n.expr)}`,
  reads: (n) => exprFields(n.expr),
  writes: () => [],
  compile(n, b) {
    const c = compileExpr(n.expr, { schema: b.schema, nowMs: b.nowMs });
    b.push(`SELECT * FROM ${b.cur} WHERE coalesce(${toBool(c)}, FALSE)`);
  },
};
