import { describe, parseError, printIdent, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { colRef, type ColRef, type ColType, type Schema } from '../schema.js';
import { num, str } from '../sql.js';
import { compileCall, FUNCTIONS } from './functions.js';
import { toBool, toNum, toStr } from './coerce.js';

/** Expressions of `where` and `eval`: literals, fields, operators and function calls. */
export type Expr =
  | { kind: 'num'; raw: string }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  | { kind: 'field'; name: string }
  | { kind: 'call'; fn: string; args: Expr[] }
  | { kind: 'unary'; op: '-' | 'NOT'; arg: Expr }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr };

export type BinaryOp = 'OR' | 'AND' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '.' | '*' | '/' | '%';

const PREC: Record<BinaryOp, number> = {
  OR: 1,
  AND: 2,
  '=': 4,
  '!=': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '.': 5,
  '*': 6,
  '/': 6,
  '%': 6,
};
const NOT_PREC = 3;
const NEG_PREC = 7;

function binaryOp(t: Token): BinaryOp | undefined {
  if (t.kind === 'ident' && (t.text === 'AND' || t.text === 'OR')) return t.text;
  if (t.kind !== 'op') return undefined;
  if (t.text === '==') return '=';
  return t.text in PREC ? (t.text as BinaryOp) : undefined;
}

/**
 * Most binary operators one expression may hold (`a + b + …`, `x=1 AND y=2 AND …`: 2 per condition):
 * a chain is a tree as deep as it is long, which the compiler and printer recurse through.
 */
export const MAX_OPERATORS = 200;

/** Parses an expression with precedence climbing; stops before `,`, `)`, `|` or the end. */
export function parseExpr(p: Parser, minPrec = 1, chain = { ops: 0 }): Expr {
  let left = parseUnary(p, chain);
  for (;;) {
    const t = p.peek('expr');
    const op = binaryOp(t);
    if (!op || PREC[op] < minPrec) return left;
    if (++chain.ops > MAX_OPERATORS)
      throw p.fail(`cannot chain more than ${MAX_OPERATORS} operators in one expression: simplify it`, t);
    p.next('expr');
    const right = parseExpr(p, PREC[op] + 1, chain);
    left = { kind: 'binary', op, left, right };
  }
}

/** `chain` counts the binary operators of the whole expression, inside parentheses and calls too. */
function parseUnary(p: Parser, chain: { ops: number }): Expr {
  const t = p.peek('expr');
  if (t.kind === 'ident' && t.text === 'NOT') {
    p.next('expr');
    return p.nest(t, () => ({ kind: 'unary', op: 'NOT', arg: parseExpr(p, NOT_PREC + 1, chain) }));
  }
  if (t.kind === 'op' && t.text === '-') {
    p.next('expr');
    return p.nest(t, () => ({ kind: 'unary', op: '-', arg: parseExpr(p, NEG_PREC, chain) }));
  }
  return parsePrimary(p, chain);
}

function parsePrimary(p: Parser, chain: { ops: number }): Expr {
  const t = p.next('expr');
  if (t.kind === 'number') {
    if (!Number.isFinite(Number(t.text))) throw p.fail(`${describe(t)} is out of range for a number`, t);
    return { kind: 'num', raw: t.text };
  }
  if (t.kind === 'string') return { kind: 'str', value: t.text };
  if (t.kind === 'op' && t.text === '(') {
    return p.nest(t, () => {
      const e = parseExpr(p, 1, chain);
      p.expectOp(')', 'expr');
      return e;
    });
  }
  if (t.kind === 'ident') {
    const quoted = t.raw.startsWith("'");
    if (!quoted && (t.text === 'true' || t.text === 'false')) return { kind: 'bool', value: t.text === 'true' };
    if (!quoted && t.text === 'null') return { kind: 'null' };
    const next = p.peek('expr');
    if (!quoted && next.kind === 'op' && next.text === '(' && next.pos === t.pos + t.raw.length)
      return parseCall(p, t, chain);
    return { kind: 'field', name: t.text };
  }
  throw parseError(`unexpected ${describe(t)}: missing a value, field or function`, t.pos, t.raw);
}

function parseCall(p: Parser, name: Token, chain: { ops: number }): Expr {
  const fn = name.text.toLowerCase();
  const def = FUNCTIONS[fn];
  if (!def) throw parseError(`unknown function "${name.text}"`, name.pos, name.raw);
  p.next('expr');
  const args: Expr[] = [];
  p.nest(name, () => {
    if (p.acceptOp(')', 'expr')) return;
    do args.push(parseExpr(p, 1, chain));
    while (p.acceptOp(',', 'expr'));
    p.expectOp(')', 'expr');
  });
  if (args.length < def.min || args.length > def.max) {
    const want =
      def.min === def.max ? `${def.min}` : def.max === Infinity ? `at least ${def.min}` : `${def.min} to ${def.max}`;
    throw parseError(
      `function "${fn}" takes ${want} argument${want === '1' ? '' : 's'}, not ${args.length}`,
      name.pos,
      name.raw,
    );
  }
  return { kind: 'call', fn, args };
}

function precOf(e: Expr): number {
  if (e.kind === 'binary') return PREC[e.op];
  if (e.kind === 'unary') return e.op === 'NOT' ? NOT_PREC : NEG_PREC;
  return 10;
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return e.raw;
    case 'str':
      return quoteString(e.value);
    case 'bool':
      return String(e.value);
    case 'null':
      return 'null';
    case 'field':
      return printIdent(e.name);
    case 'call':
      return `${e.fn}(${e.args.map((a) => printExpr(a)).join(', ')})`;
    case 'unary': {
      const inner = precOf(e.arg) < precOf(e) ? `(${printExpr(e.arg)})` : printExpr(e.arg);
      return e.op === 'NOT' ? `NOT ${inner}` : `-${inner}`;
    }
    case 'binary': {
      const p = PREC[e.op];
      const l = precOf(e.left) < p ? `(${printExpr(e.left)})` : printExpr(e.left);
      const r = precOf(e.right) <= p ? `(${printExpr(e.right)})` : printExpr(e.right);
      return `${l} ${e.op} ${r}`;
    }
  }
}

/** Field names an expression reads. */
export function exprFields(e: Expr): string[] {
  switch (e.kind) {
    case 'field':
      return [e.name];
    case 'call':
      return e.args.flatMap(exprFields);
    case 'unary':
      return exprFields(e.arg);
    case 'binary':
      return [...exprFields(e.left), ...exprFields(e.right)];
    default:
      return [];
  }
}

export interface ExprCtx {
  schema: Schema;
  nowMs: number;
}

function toTime(r: ColRef): string {
  if (r.type === 'time') return r.sql;
  if (r.type === 'num') return `make_timestamp(CAST(${r.sql} * 1e6 AS BIGINT))`;
  return `TRY_CAST(${toStr(r)} AS TIMESTAMP)`;
}

function compareSql(op: BinaryOp, l: ColRef, r: ColRef): string {
  const sqlOp = op === '!=' ? '<>' : op;
  if (l.type === 'time' || r.type === 'time') return `(${toTime(l)} ${sqlOp} ${toTime(r)})`;
  if (l.type === 'num' || r.type === 'num') return `(${toNum(l)} ${sqlOp} ${toNum(r)})`;
  if (l.type === 'bool' || r.type === 'bool') return `(${toBool(l)} ${sqlOp} ${toBool(r)})`;
  if (l.type === 'any' && r.type === 'any') {
    // two user fields: numerically when both hold numbers, else as text
    return `coalesce(${toNum(l)} ${sqlOp} ${toNum(r)}, ${toStr(l)} ${sqlOp} ${toStr(r)})`;
  }
  return `(${toStr(l)} ${sqlOp} ${toStr(r)})`;
}

function compileBinary(e: Extract<Expr, { kind: 'binary' }>, ctx: ExprCtx): ColRef {
  const l = compileExpr(e.left, ctx);
  const r = compileExpr(e.right, ctx);
  switch (e.op) {
    case 'AND':
    case 'OR':
      return { sql: `(coalesce(${toBool(l)}, FALSE) ${e.op} coalesce(${toBool(r)}, FALSE))`, type: 'bool' };
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return { sql: compareSql(e.op, l, r), type: 'bool' };
    case '.':
      return { sql: `(${toStr(l)} || ${toStr(r)})`, type: 'str' };
    case '+':
      if (l.type === 'str' || r.type === 'str') return { sql: `(${toStr(l)} || ${toStr(r)})`, type: 'str' };
      return { sql: `(${toNum(l)} + ${toNum(r)})`, type: 'num' };
    case '/':
      return { sql: `(${toNum(l)} / nullif(${toNum(r)}, 0))`, type: 'num' };
    default:
      return { sql: `(${toNum(l)} ${e.op} ${toNum(r)})`, type: 'num' };
  }
}

/** SQL for an expression over the stage's columns, with its inferred type. */
export function compileExpr(e: Expr, ctx: ExprCtx): ColRef {
  switch (e.kind) {
    case 'num':
      return { sql: num(Number(e.raw)), type: 'num' };
    case 'str':
      return { sql: str(e.value), type: 'str' };
    case 'bool':
      return { sql: e.value ? 'TRUE' : 'FALSE', type: 'bool' };
    case 'null':
      return { sql: 'NULL', type: 'any' };
    case 'field':
      return colRef(ctx.schema, e.name);
    case 'unary': {
      const a = compileExpr(e.arg, ctx);
      if (e.op === 'NOT') return { sql: `(NOT coalesce(${toBool(a)}, FALSE))`, type: 'bool' };
      return { sql: `(-${toNum(a)})`, type: 'num' };
    }
    case 'binary':
      return compileBinary(e, ctx);
    case 'call':
      return compileCall(
        e.fn,
        e.args.map((a) => compileExpr(a, ctx)),
        ctx.nowMs,
      );
  }
}

export type { ColType };
