import { SvcError } from '../errors/svc-error.js';

/**
 * The query lexer. The language has two lexical contexts, chosen by the parser token by token:
 * - `search`: the part before the first pipe and raw values (`span=1m`, `earliest=-15m`): a word
 *   runs until whitespace or one of `( ) | " = < > !=`; `*`, `-`, `.`, `:` are word characters
 *   (except `name:` directly followed by a value, which is a field test).
 * - `expr`: pipe arguments and `where`/`eval` expressions: identifiers, numbers, operators.
 */
export type TokenKind = 'word' | 'string' | 'ident' | 'number' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The token's value: the word, the unescaped string, the operator. */
  text: string;
  /** Offset of the first character in the query. */
  pos: number;
  /** The token exactly as written (strings with quotes). */
  raw: string;
}

/**
 * `value`: a field's value in the search part (after `field=`, inside `IN (…)`): as `search`, but a
 * colon is a character of the value (`sourcetype=WinEventLog:Security`, `host=a:b`).
 */
export type LexMode = 'search' | 'expr' | 'value';

const SEARCH_OPS = ['!=', '>=', '<=', '(', ')', '|', '=', '<', '>', ':'];
const EXPR_OPS = ['==', '!=', '>=', '<=', '(', ')', '|', ',', '=', '<', '>', '+', '-', '*', '/', '%', '[', ']'];
// `{}` and `{N}`: Splunk's JSON array paths (`a{}.b`, every b of the array in a; schema.ts)
const FIELD_NAME = /^[A-Za-z_@](?:[A-Za-z0-9_.@-]|\{\d*\})*$/;
const ARRAY_STEP = /^\{\d*\}/;
const IDENT_START = /[A-Za-z_@]/;
const IDENT_CHAR = /[A-Za-z0-9_.@]/;

export function isFieldName(s: string): boolean {
  return FIELD_NAME.test(s);
}

export function parseError(message: string, pos: number, token: string): SvcError {
  return new SvcError('invalid_query', message, { details: { position: pos, token } });
}

/** Describes a token for error messages: `"|"`, `end of query`. */
export function describe(t: Token): string {
  return t.kind === 'eof' ? 'end of query' : JSON.stringify(t.raw);
}

export class Lexer {
  private pos = 0;
  private cache: { pos: number; mode: LexMode; tok: Token; end: number } | undefined;

  constructor(readonly src: string) {}

  /** The next token in `mode` without consuming it. */
  peek(mode: LexMode): Token {
    if (this.cache && this.cache.pos === this.pos && this.cache.mode === mode) return this.cache.tok;
    const start = this.skipSpace(this.pos);
    const [tok, end] = mode === 'expr' ? this.lexExpr(start) : this.lexSearch(start, mode === 'value');
    this.cache = { pos: this.pos, mode, tok, end };
    return tok;
  }

  next(mode: LexMode): Token {
    const tok = this.peek(mode);
    this.pos = this.cache!.end;
    return tok;
  }

  /** Offset just after the last consumed token. */
  get position(): number {
    return this.pos;
  }

  /** Moves to `pos` (after text read outside the lexer, such as a bracketed subsearch). */
  seek(pos: number): void {
    this.pos = pos;
    this.cache = undefined;
  }

  /** Offset of the next non-space character. */
  nextNonSpace(): number {
    return this.skipSpace(this.pos);
  }

  /** True when whitespace separates the current position from the next token. */
  spaceAhead(): boolean {
    return this.pos < this.src.length && /\s/.test(this.src[this.pos]);
  }

  /** Skips whitespace (Splunk's comments are blanked before lexing: withoutComments). */
  private skipSpace(i: number): number {
    while (i < this.src.length && /\s/.test(this.src[i])) i++;
    return i;
  }

  private tok(kind: TokenKind, text: string, pos: number, end: number): [Token, number] {
    return [{ kind, text, pos, raw: this.src.slice(pos, end) }, end];
  }

  private lexSearch(i: number, value: boolean): [Token, number] {
    const s = this.src;
    if (i >= s.length) return this.tok('eof', '', i, i);
    if (s[i] === '"') return this.lexString(i, '"', 'string');
    for (const op of SEARCH_OPS) {
      if (s.startsWith(op, i) && op !== ':') return this.tok('op', op, i, i + op.length);
    }
    // the colon of `name:value`: the word before it stopped right there
    if (!value && s[i] === ':' && i > 0 && !/\s/.test(s[i - 1])) return this.tok('op', ':', i, i + 1);
    let j = i;
    while (j < s.length && !/[\s()|"=<>]/.test(s[j]) && !s.startsWith('!=', j)) {
      // `name:value` and `name:"value"`: the colon ends the word when a field name precedes it
      if (
        !value &&
        s[j] === ':' &&
        j > i &&
        isFieldName(s.slice(i, j)) &&
        j + 1 < s.length &&
        !/[\s:/|)]/.test(s[j + 1])
      )
        break;
      j++;
    }
    if (j === i) return this.tok('op', s[i], i, i + 1);
    return this.tok('word', s.slice(i, j), i, j);
  }

  private lexExpr(i: number): [Token, number] {
    const s = this.src;
    if (i >= s.length) return this.tok('eof', '', i, i);
    const c = s[i];
    if (c === '"') return this.lexString(i, '"', 'string');
    if (c === "'") return this.lexString(i, "'", 'ident');
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(s.slice(i))!;
      // a number glued to letters (`1m`, `5xx`) is a word such as a span or a value
      const after = s[i + m[0].length] ?? '';
      if (/[A-Za-z_]/.test(after)) {
        let j = i + m[0].length;
        while (j < s.length && IDENT_CHAR.test(s[j])) j++;
        return this.tok('ident', s.slice(i, j), i, j);
      }
      return this.tok('number', m[0], i, i + m[0].length);
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      for (;;) {
        if (j < s.length && IDENT_CHAR.test(s[j])) j++;
        else if (s[j] === '{' && ARRAY_STEP.test(s.slice(j, j + 12))) j = s.indexOf('}', j) + 1;
        else break;
      }
      // `a."-".b`: a name does not end with a dot, which is the concatenation operator
      if (s[j - 1] === '.' && j - 1 > i) j--;
      return this.tok('ident', s.slice(i, j), i, j);
    }
    for (const op of EXPR_OPS) if (s.startsWith(op, i)) return this.tok('op', op, i, i + op.length);
    return this.tok('op', c, i, i + 1);
  }

  private lexString(i: number, q: string, kind: TokenKind): [Token, number] {
    const s = this.src;
    let out = '';
    let j = i + 1;
    while (j < s.length && s[j] !== q) {
      if (s[j] === '\\' && j + 1 < s.length && (s[j + 1] === q || s[j + 1] === '\\')) {
        out += s[j + 1];
        j += 2;
      } else out += s[j++];
    }
    if (j >= s.length)
      throw parseError(`missing closing ${q} for the string starting at position ${i}`, i, s.slice(i, i + 20));
    return this.tok(kind, out, i, j + 1);
  }
}

/** Quotes a value as a query string literal: `"a \"b\""`. */
export function quoteString(s: string, q = '"'): string {
  let out = q;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    // a backslash stays single unless the lexer would read it as an escape
    if (c === '\\') out += i + 1 === s.length || s[i + 1] === '\\' || s[i + 1] === q ? '\\\\' : '\\';
    else out += c === q ? `\\${q}` : c;
  }
  return out + q;
}

/** Prints a field name in an expression: bare when it lexes as one identifier, else single-quoted. */
export function printIdent(name: string): string {
  return /^[A-Za-z_@](?:[A-Za-z0-9_.@]|\{\d*\})*$/.test(name) && !name.endsWith('.') ? name : quoteString(name, "'");
}

/**
 * The query with Splunk's inline comments (```` ```any text``` ````) blanked out, each character
 * replaced by a space so that positions in errors still point into the query as written. Splunk
 * removes them before it parses, in every part of a query; inside a double-quoted string they are
 * text. A single backtick outside a string opens a search macro (`` `name` ``, `` `name(args)` ``),
 * which Splunk expands from its configuration and svc cannot: refused at its position rather
 * than read as words.
 */
export function withoutComments(src: string): string {
  if (!src.includes('`')) return src; // fast path: nearly every query
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else if (src.startsWith('```', i)) {
      const end = src.indexOf('```', i + 3);
      if (end < 0) throw parseError(`missing closing \`\`\` for the comment starting at position ${i}`, i, '```');
      out += ' '.repeat(end + 3 - i);
      i = end + 3;
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      const macro = end < 0 ? src.slice(i, i + 40) : src.slice(i, end + 1);
      throw parseError(
        `svc has no search macros: cannot expand ${macro}; write the search it stands for instead`,
        i,
        macro,
      );
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
