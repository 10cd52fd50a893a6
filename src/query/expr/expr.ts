import { describe, parseError, printIdent, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { colRef, type ColRef, type ColType, type Schema } from '../schema.js';
import { ident, num, str } from '../sql.js';
import { SvcError } from '../../errors/svc-error.js';
import { toList } from './mv-functions.js';
import { compileCall, FUNCTIONS } from './functions.js';
import { toBool, toNum, toStr } from './coerce.js';
import { searchFields, type SearchNode } from '../search/filter-logic.js';
import { readSearchmatch, searchmatchSql } from './searchmatch.js';

/** Expressions of `where` and `eval`: literals, fields, operators and function calls. */
export type Expr =
  | { kind: 'num'; raw: string }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  | { kind: 'field'; name: string }
  | { kind: 'call'; fn: string; args: Expr[]; search?: SearchNode }
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

/**
 * The operator a token is where one is due. `and`/`or` in any case: Splunk's eval and where read
 * them so (its own detections write `where failures >= 5 and methods >= 1`); only the search part
 * wants capitals. A quoted `'and'` is a field.
 */
function binaryOp(t: Token): BinaryOp | undefined {
  const word = t.kind === 'ident' && !t.raw.startsWith("'") ? t.text.toUpperCase() : '';
  if (word === 'AND' || word === 'OR') return word;
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
    if (t.kind === 'ident' && t.raw.toLowerCase() === 'in' && minPrec <= IN_PREC) {
      left = parseIn(p, left, chain);
      continue;
    }
    // Splunk's `x LIKE "a%"`, a comparison: the call like(x, "a%")
    if (t.kind === 'ident' && t.raw.toLowerCase() === 'like' && minPrec <= IN_PREC) {
      p.next('expr');
      if (++chain.ops > MAX_OPERATORS)
        throw p.fail(`cannot chain more than ${MAX_OPERATORS} operators in one expression: simplify it`, t);
      left = { kind: 'call', fn: 'like', args: [left, parseExpr(p, IN_PREC + 1, chain)] };
      continue;
    }
    const op = binaryOp(t);
    if (!op || PREC[op] < minPrec) return left;
    if (++chain.ops > MAX_OPERATORS)
      throw p.fail(`cannot chain more than ${MAX_OPERATORS} operators in one expression: simplify it`, t);
    p.next('expr');
    const right = parseExpr(p, PREC[op] + 1, chain);
    left = { kind: 'binary', op, left, right };
  }
}

/** Splunk's `x IN (a, b)` in where and eval, a comparison: the call in(x, a, b). */
const IN_PREC = 4;

function parseIn(p: Parser, left: Expr, chain: { ops: number }): Expr {
  const t = p.next('expr');
  if (++chain.ops > MAX_OPERATORS)
    throw p.fail(`cannot chain more than ${MAX_OPERATORS} operators in one expression: simplify it`, t);
  p.expectOp('(', 'expr');
  const args = [left];
  p.nest(t, () => {
    do args.push(parseExpr(p, 1, chain));
    while (p.acceptOp(',', 'expr'));
    p.expectOp(')', 'expr');
  });
  if (args.length > FUNCTIONS.in.max)
    throw parseError(`"IN" takes at most ${FUNCTIONS.in.max - 1} values, not ${args.length - 1}`, t.pos, t.raw);
  return { kind: 'call', fn: 'in', args };
}

/** `chain` counts the binary operators of the whole expression, inside parentheses and calls too. */
function parseUnary(p: Parser, chain: { ops: number }): Expr {
  const t = p.peek('expr');
  if (t.kind === 'ident' && t.text === 'NOT') {
    p.next('expr');
    return p.nest(t, () => ({ kind: 'unary', op: 'NOT', arg: parseExpr(p, NOT_PREC + 1, chain) }));
  }
  // `not` in another case is NOT too, unless an operator follows it: then it is a field (`not=1`)
  if (t.kind === 'ident' && !t.raw.startsWith("'") && t.text.toUpperCase() === 'NOT') {
    p.next('expr');
    const after = p.peek('expr');
    const operand = !(after.kind === 'op' && after.text !== '(' && after.text !== '-') && after.kind !== 'eof';
    if (!operand) return { kind: 'field', name: t.text };
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
    const next = p.peek('expr');
    // a call first: `true()`, `null()` are Splunk's functions for the literals
    if (!quoted && next.kind === 'op' && next.text === '(' && next.pos === t.pos + t.raw.length)
      return parseCall(p, t, chain);
    // Splunk writes `LIKE (x, "a%")` with a space too
    if (!quoted && t.text === 'LIKE' && next.kind === 'op' && next.text === '(') return parseCall(p, t, chain);
    if (!quoted && (t.text === 'true' || t.text === 'false')) return { kind: 'bool', value: t.text === 'true' };
    if (!quoted && t.text === 'null') return { kind: 'null' };
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
  const first = p.peek('expr');
  if (fn === 'searchmatch' && first.kind !== 'string')
    throw p.fail(`unexpected ${describe(first)}: searchmatch takes a search expression in quotes`, first);
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
  if (fn === 'searchmatch') return { kind: 'call', fn, args, search: readSearchmatch(p, first) };
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
      return [...e.args.flatMap(exprFields), ...(e.search ? searchFields(e.search) : [])];
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

/**
 * A multivalue compared with `=` matches when one of its values does (Splunk); other comparisons
 * of a multivalue are refused rather than made on the list's text.
 */
function compareList(op: BinaryOp, l: ColRef, r: ColRef): string {
  const [list, other] = l.type === 'list' ? [l, r] : [r, l];
  if (op !== '=' || other.type === 'list')
    throw new SvcError(
      'invalid_query',
      `cannot compare a multivalue with "${op}"${other.type === 'list' ? ' to another multivalue' : ''}: "=" matches any of its values; mvcount, mvfind and mvindex read it otherwise`,
    );
  return `list_contains(${toList(list)}, ${toStr(other)})`;
}

function compareSql(op: BinaryOp, l: ColRef, r: ColRef): string {
  if (l.type === 'list' || r.type === 'list') return compareList(op, l, r);
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

/** An expression with every reference to the field `from` made one to `to`. */
function renameField(e: Expr, from: string, to: string): Expr {
  switch (e.kind) {
    case 'field':
      return e.name === from ? { kind: 'field', name: to } : e;
    case 'call':
      return { ...e, args: e.args.map((a) => renameField(a, from, to)) };
    case 'unary':
      return { ...e, arg: renameField(e.arg, from, to) };
    case 'binary':
      return { ...e, left: renameField(e.left, from, to), right: renameField(e.right, from, to) };
    default:
      return e;
  }
}

/**
 * Splunk's mvfilter(cond): the values of the one multivalue field the condition names for which
 * it is true, each value standing for the field in turn (a DuckDB lambda); null when none is.
 */
function compileMvfilter(e: Extract<Expr, { kind: 'call' }>, ctx: ExprCtx): ColRef {
  const fields = [...new Set(exprFields(e.args[0]))];
  if (fields.length !== 1)
    throw new SvcError(
      'invalid_query',
      `mvfilter: the condition must name exactly one field, the multivalue it filters, not ${fields.length === 0 ? 'none' : fields.join(', ')}`,
    );
  const v = '__mvfilter_value';
  const cond = compileExpr(renameField(e.args[0], fields[0], v), {
    ...ctx,
    schema: new Map([...ctx.schema, [v, 'str']]),
  });
  const list = toList(colRef(ctx.schema, fields[0]));
  const kept = `list_filter(${list}, lambda ${ident(v)}: coalesce(${toBool(cond)}, FALSE))`;
  return { sql: `CASE WHEN len(${kept}) = 0 THEN NULL ELSE ${kept} END`, type: 'list' };
}

/**
 * Splunk's mvmap(mv, expr): expr computed for each value of the field mv, the field standing for
 * the value inside expr; the results as a multivalue of texts (nulls dropped; none: null).
 */
function compileMvmap(e: Extract<Expr, { kind: 'call' }>, ctx: ExprCtx): ColRef {
  const [mv, fn] = e.args;
  if (mv.kind !== 'field')
    throw new SvcError('invalid_query', 'mvmap: the first argument must be a field, the multivalue');
  const v = '__mvmap_value';
  const each = compileExpr(renameField(fn, mv.name, v), { ...ctx, schema: new Map([...ctx.schema, [v, 'str']]) });
  const list = toList(colRef(ctx.schema, mv.name));
  const mapped = `list_filter(list_transform(${list}, lambda ${ident(v)}: ${toStr(each)}), lambda __x: __x IS NOT NULL)`;
  return { sql: `CASE WHEN len(${mapped}) = 0 THEN NULL ELSE ${mapped} END`, type: 'list' };
}

/** SQL for an expression over the stage's columns, with its inferred type. */
export function compileExpr(e: Expr, ctx: ExprCtx): ColRef {
  switch (e.kind) {
    case 'num':
      return { sql: num(Number(e.raw)), type: 'num' };
    case 'str':
      return { sql: str(e.value), type: 'str', text: e.value };
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
      if (e.fn === 'mvfilter') return compileMvfilter(e, ctx);
      if (e.fn === 'mvmap') return compileMvmap(e, ctx);
      if (e.fn === 'searchmatch') return searchmatchSql(e.search, ctx.schema, ctx.nowMs);
      return compileCall(
        e.fn,
        e.args.map((a) => compileExpr(a, ctx)),
        ctx.nowMs,
      );
  }
}

export type { ColType };
