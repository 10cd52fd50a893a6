import { describe, isFieldName, Lexer, parseError, withoutComments, type LexMode, type Token } from './lexer.js';
import { SvcError } from '../errors/svc-error.js';
import { MATCH_ALL, type SearchNode } from './search/filter-logic.js';
import type { FieldOp } from './search/filter-field.js';
import { BARE_LIST_NAME, type ListItem } from './pipes/field-names.js';
import type { Parser, Subquery } from './parser-api.js';
import { PIPES, pipeDef, printQuery, type PipeNode } from './pipes/registry.js';
import { parseTime } from './time-range.js';

/** A parsed query: the search before the first pipe, then the pipes in order. */
export interface Query {
  search: SearchNode;
  pipes: PipeNode[];
}

const FIELD_OPS = new Set(['=', '!=', '<', '<=', '>', '>=', ':']);

/**
 * Deepest nesting a query may have: parentheses, NOT, unary minus, function calls and subsearches,
 * each one level, counted together. The parser, printer and compiler recurse once per level;
 * 10,000 levels overflowed the stack (a 500), 100 is far beyond what a person writes.
 */
export const MAX_NESTING = 100;
/**
 * Most terms, phrases and field filters the search part may hold. Flat lists cost no stack, but
 * their cost grows faster than their length (5,000 ANDed field filters: 18 s of CPU for one search
 * of 100 events); 1,000 is far beyond a hand-written search and a generated host list.
 */
export const MAX_TERMS = 1000;
const NESTING_MESSAGE = `cannot nest deeper than ${MAX_NESTING} levels (parentheses, NOT, functions and subsearches count): simplify the query`;

/**
 * Recursive-descent parser over the context-sensitive lexer. Pipe and expression modules use its
 * helpers through the Parser interface (parser-api.ts).
 * Every error is SvcError('invalid_query') with details {position, token}.
 */
export class QueryParser implements Parser {
  readonly lex: Lexer;

  /** Levels of nesting open at the current token (MAX_NESTING). */
  private depth: number;
  /** Terms, phrases and field filters read so far in the search part (MAX_TERMS). */
  private terms = 0;

  constructor(
    readonly src: string,
    depth = 0,
  ) {
    this.lex = new Lexer(src);
    this.depth = depth;
  }

  nest<T>(t: Token, fn: () => T): T {
    if (this.depth >= MAX_NESTING) throw this.fail(NESTING_MESSAGE, t);
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  peek(mode: LexMode): Token {
    return this.lex.peek(mode);
  }

  next(mode: LexMode): Token {
    return this.lex.next(mode);
  }

  fail(message: string, t: Token): SvcError {
    return parseError(message, t.pos, t.kind === 'eof' ? '' : t.raw);
  }

  unexpected(t: Token, hint = ''): SvcError {
    return this.fail(`unexpected ${describe(t)}${hint ? `: ${hint}` : ''}`, t);
  }

  acceptOp(op: string, mode: LexMode): boolean {
    const t = this.peek(mode);
    if (t.kind !== 'op' || t.text !== op) return false;
    this.next(mode);
    return true;
  }

  expectOp(op: string, mode: LexMode): Token {
    const t = this.peek(mode);
    if (t.kind !== 'op' || t.text !== op) throw this.fail(`unexpected ${describe(t)}: missing "${op}"`, t);
    return this.next(mode);
  }

  /** Consumes an unquoted keyword (case-insensitive) when it comes next. */
  acceptKeyword(word: string): boolean {
    const t = this.peek('expr');
    if (t.kind !== 'ident' || t.raw.toLowerCase() !== word) return false;
    this.next('expr');
    return true;
  }

  /** True at `|` or the end of the query. */
  atPipeEnd(): boolean {
    const t = this.peek('search');
    return t.kind === 'eof' || (t.kind === 'op' && t.text === '|');
  }

  /** A field name in an expression context (`'quoted name'` allowed). */
  fieldName(what: string): string {
    const t = this.peek('expr');
    if (t.kind !== 'ident' || /^[0-9]/.test(t.raw)) throw this.fail(`unexpected ${describe(t)}: missing ${what}`, t);
    this.next('expr');
    return t.text;
  }

  /** A positive integer argument. */
  positiveInt(what: string): number {
    const t = this.next('expr');
    if (t.kind !== 'number' || !/^\d+$/.test(t.text) || Number(t.text) < 1)
      throw this.fail(`unexpected ${describe(t)}: missing ${what} (a positive integer)`, t);
    if (!Number.isSafeInteger(Number(t.text)))
      throw this.fail(`${describe(t)} is too large for ${what} (at most ${Number.MAX_SAFE_INTEGER})`, t);
    return Number(t.text);
  }

  /** True when a plain integer comes next. */
  intAhead(): boolean {
    const t = this.peek('expr');
    return t.kind === 'number' && /^\d+$/.test(t.text);
  }

  /** Field names of a list, without signs or functions (see listItems). */
  fieldList(what: string, opts: { stop?: string[]; allowEmpty?: boolean } = {}): string[] {
    return this.listItems(what, opts).map((i) => i.name);
  }

  /**
   * Field names separated by commas and/or spaces, up to `|`, the end or a stop keyword such as
   * `by`. A name is bare (`*` wildcards allowed) or double-quoted (any characters: `"user name"`).
   * With `signs`, each may carry a leading `+`/`-` (`-count`, `-"user name"`); with `fns`, each
   * may be wrapped in one of those functions (`num(x)`, `-str("a b")`).
   */
  listItems(
    what: string,
    opts: { stop?: string[]; signs?: boolean; fns?: string[]; allowEmpty?: boolean } = {},
  ): ListItem[] {
    const out: ListItem[] = [];
    let prevEnd = -1;
    // Splunk's `sort - count`: a sign standing alone applies to the name after it
    let lone: Token | undefined;
    for (;;) {
      const t = this.peek('search');
      if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|')) break;
      if (t.kind === 'word' && opts.stop?.includes(t.text.toLowerCase())) break;
      // `"All_Changes".*`: a quoted name goes on with a path glued to it (Splunk's CIM macros)
      if (t.pos === prevEnd && this.src[prevEnd - 1] === '"' && t.kind === 'word' && /^\.[\w.@*-]*$/.test(t.text)) {
        out[out.length - 1].name += this.next('search').text;
        prevEnd = this.lex.position;
        continue;
      }
      // two names need a space or comma between them: `"a"b` is a typo, not two fields
      if (t.pos === prevEnd && !t.raw.startsWith(',') && this.src[prevEnd - 1] !== ',')
        throw this.unexpected(t, 'missing a space or comma before it');
      const before = out.length;
      if (opts.signs && !lone && t.kind === 'word' && (t.text === '-' || t.text === '+')) lone = this.next('search');
      else if (t.kind === 'string') out.push({ name: this.quotedListName(this.next('search')), sign: '' });
      else if (t.kind === 'word') this.listWord(this.next('search'), what, opts, out);
      else throw this.unexpected(t, `missing ${what}`);
      if (lone && out.length > before) {
        if (out[before].sign !== '')
          throw this.unexpected(lone, `a second sign before ${JSON.stringify(out[before].name)}`);
        out[before].sign = lone.text as '+' | '-';
        lone = undefined;
      }
      prevEnd = lone ? -1 : this.lex.position;
    }
    if (lone) throw this.unexpected(lone, `missing ${what} after the sign`);
    if (out.length === 0 && !opts.allowEmpty) throw this.fail(`missing ${what}`, this.peek('search'));
    return out;
  }

  private quotedListName(t: Token): string {
    if (t.text === '') throw this.fail('missing text inside the field name ""', t);
    return t.text;
  }

  /** The names of one word token (`a,b,-c`), which may end in a sign glued to a quoted name or a function call. */
  private listWord(t: Token, what: string, opts: { signs?: boolean; fns?: string[] }, out: ListItem[]): void {
    const parts = t.text.split(',');
    parts.forEach((part, i) => {
      if (part === '') return;
      const last = i === parts.length - 1;
      const sign = opts.signs && /^[+-]/.test(part) ? (part[0] as '+' | '-') : '';
      const name = sign ? part.slice(1) : part;
      const glued = last ? this.gluedAfter(t) : undefined;
      if (name === '' && sign && glued?.kind === 'string')
        out.push({ name: this.quotedListName(this.next('search')), sign });
      else if (name !== '' && glued?.kind === 'op' && glued.text === '(')
        out.push(this.listCall(t, name, sign, what, opts.fns ?? []));
      else if (!BARE_LIST_NAME.test(name)) throw this.fail(`unexpected ${JSON.stringify(part)}: missing ${what}`, t);
      else out.push({ name, sign });
    });
  }

  /** The next token when it starts right where `t` ends (no space between). */
  private gluedAfter(t: Token): Token | undefined {
    const next = this.peek('search');
    return next.kind !== 'eof' && next.pos === t.pos + t.raw.length ? next : undefined;
  }

  /** `fn(name)` or `fn("name")` after the word `fn` (already consumed). */
  private listCall(t: Token, fn: string, sign: ListItem['sign'], what: string, fns: string[]): ListItem {
    const open = this.next('search');
    if (!fns.includes(fn.toLowerCase())) {
      if (fns.length === 0) throw this.unexpected(open, `missing ${what}`);
      throw this.fail(
        `unknown sort function ${JSON.stringify(fn)}: want ${fns.slice(0, -1).join(', ')} or ${fns[fns.length - 1]}`,
        t,
      );
    }
    const arg = this.next('search');
    let name: string;
    if (arg.kind === 'string') name = this.quotedListName(arg);
    else if (arg.kind === 'word' && BARE_LIST_NAME.test(arg.text)) name = arg.text;
    else throw this.unexpected(arg, `missing a field inside "${fn.toLowerCase()}(...)"`);
    this.expectOp(')', 'search');
    return { name, sign, fn: fn.toLowerCase() };
  }

  leading(cmd: Token): boolean {
    return /^\s*\|\s*$/.test(this.src.slice(0, cmd.pos));
  }

  // ---- the search part ----

  /** Words (lower case) that end the search part as well as `|` (parseSearch's `stop`). */
  private stopWords: readonly string[] = [];

  parseSearch(stop: readonly string[] = []): SearchNode {
    if (this.atPipeEnd() || this.atStopWord(stop)) return MATCH_ALL;
    const outer = this.stopWords;
    this.stopWords = stop;
    try {
      const node = this.parseAnd();
      const t = this.peek('search');
      if (!(t.kind === 'eof' || (t.kind === 'op' && t.text === '|') || this.atStopWord(stop))) throw this.unexpected(t);
      return node;
    } finally {
      this.stopWords = outer;
    }
  }

  /** True at an unquoted word of `stop` (any case): `by` ends tstats' where clause. */
  private atStopWord(stop: readonly string[]): boolean {
    const t = this.peek('search');
    return t.kind === 'word' && stop.includes(t.text.toLowerCase());
  }

  private isWord(t: Token, w: string): boolean {
    return t.kind === 'word' && t.text === w;
  }

  /**
   * Splunk's order for the search part (Search Manual, "Boolean expressions": parentheses, NOT, OR,
   * then AND): OR binds tighter than AND, written or implicit, so `a OR b c` is `(a OR b) c`.
   * `where`/`eval` expressions keep AND before OR (expr/expr.ts), as Splunk's do.
   */
  private parseAnd(): SearchNode {
    const items: SearchNode[] = [];
    for (;;) {
      const t = this.peek('search');
      if (t.kind === 'eof' || (t.kind === 'op' && (t.text === ')' || t.text === '|'))) break;
      if (this.atStopWord(this.stopWords)) break;
      if (this.isWord(t, 'AND')) {
        if (items.length === 0) throw this.unexpected(t, 'missing a search term before it');
        this.next('search');
        const after = this.peek('search');
        if (after.kind === 'eof' || (after.kind === 'op' && after.text !== '('))
          throw this.unexpected(after, 'missing a search term after "AND"');
        continue;
      }
      items.push(this.parseOr());
    }
    if (items.length === 0) throw this.unexpected(this.peek('search'), 'missing a search term');
    return items.length === 1
      ? items[0]
      : { kind: 'and', items: items.flatMap((i) => (i.kind === 'and' ? i.items : [i])) };
  }

  private parseOr(): SearchNode {
    const items = [this.parseUnary()];
    while (this.isWord(this.peek('search'), 'OR')) {
      this.next('search');
      items.push(this.parseUnary());
    }
    return items.length === 1
      ? items[0]
      : { kind: 'or', items: items.flatMap((i) => (i.kind === 'or' ? i.items : [i])) };
  }

  private parseUnary(): SearchNode {
    const t = this.peek('search');
    if (this.isWord(t, 'NOT')) {
      this.next('search');
      const after = this.peek('search');
      if (after.kind === 'eof' || (after.kind === 'op' && after.text !== '('))
        throw this.unexpected(after, 'missing a search term after "NOT"');
      return this.nest(t, () => ({ kind: 'not', item: this.parseUnary() }));
    }
    if (t.kind === 'word' && t.text.length > 1 && t.text.startsWith('-')) {
      this.next('search');
      this.countTerm(t);
      return {
        kind: 'not',
        item: this.parseWord({ ...t, text: t.text.slice(1), pos: t.pos + 1, raw: t.raw.slice(1) }),
      };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): SearchNode {
    const t = this.next('search');
    if (t.kind === 'op' && t.text === '(') {
      return this.nest(t, () => {
        const inner = this.parseAnd();
        this.expectOp(')', 'search');
        return inner;
      });
    }
    if (t.kind === 'string' || t.kind === 'word') this.countTerm(t);
    if (t.kind === 'string') {
      const op = this.peek('search');
      // `"properties.result"=success`: a quoted field name, as Splunk reads it before an operator
      if (op.kind === 'op' && FIELD_OPS.has(op.text) && op.text !== ':') return this.quotedField(t);
      // Splunk ignores an empty phrase (`sourcetype=splunkd ""` finds what `sourcetype=splunkd` does)
      if (t.text === '') return MATCH_ALL;
      return { kind: 'phrase', text: t.text };
    }
    if (t.kind === 'word') return this.parseWord(t);
    throw this.unexpected(t, t.kind === 'eof' ? 'missing a search term' : undefined);
  }

  private countTerm(t: Token): void {
    if (++this.terms > MAX_TERMS)
      throw this.fail(`cannot search for more than ${MAX_TERMS} terms and field filters at once: narrow the query`, t);
  }

  /** A word: a term, a `TERM(x)`/`CASE(x)` directive, or the field name of `field<op>value` or `field IN (…)`. */
  private parseWord(t: Token): SearchNode {
    if (t.text === 'AND' || t.text === 'OR' || t.text === 'NOT') throw this.unexpected(t, 'missing a search term');
    if (this.subsearchAhead(t)) {
      this.lex.seek(t.pos);
      const sub = this.nest(t, () => this.subquery('subsearch'));
      return { kind: 'subsearch', sub, text: printQuery(sub) };
    }
    const directive = this.directiveAhead(t);
    if (directive === 'CASE' && this.src[this.lex.nextNonSpace() + 1] === '"') return this.casePhrase();
    if (directive) return { kind: 'term', text: this.directiveText(directive), directive };
    const inList = this.inListAhead(t);
    if (inList) return inList;
    const op = this.peek('search');
    if (op.kind !== 'op' || !FIELD_OPS.has(op.text)) return { kind: 'term', text: t.text };
    if (!isFieldName(t.text)) throw this.fail(`invalid field name ${JSON.stringify(t.text)}`, t);
    return this.fieldFilter(t.text, t);
  }

  /**
   * Splunk's subsearch in the search part: `[search …]`, `[ search …]`, `[| …]`, `[inputlookup …]`
   * (a generating command). Other bracketed text (`[error]`) stays a term.
   */
  private subsearchAhead(t: Token): boolean {
    if (!t.text.startsWith('[')) return false;
    const opens = (w: string) => w === 'search' || PIPES[w]?.generating !== undefined;
    const rest = t.text.slice(1).toLowerCase();
    if (rest !== '') return opens(rest);
    const next = this.peek('search');
    return (next.kind === 'op' && next.text === '|') || (next.kind === 'word' && opens(next.text.toLowerCase()));
  }

  /**
   * A double-quoted field name before an operator: any name the events may carry, a JSON array
   * path (`"a{}.b"`, schema.ts) too.
   */
  private quotedField(t: Token): SearchNode {
    if (t.text === '') throw this.fail('missing a field name inside ""', t);
    return this.fieldFilter(t.text, t);
  }

  /** The operator and value after a field name (`name`, consumed already): a field filter or a time bound. */
  private fieldFilter(field: string, name: Token): SearchNode {
    // Splunk's bounds on the time an event was indexed: svc keeps no such time, and as a field they would match nothing
    if (/^_index_(earliest|latest)$/i.test(field))
      throw this.fail(
        `svc keeps no index time: ${field} cannot be honoured; bound the event time with earliest= or latest=`,
        name,
      );
    const op = this.next('search');
    const v = this.next('value');
    if (v.kind !== 'word' && v.kind !== 'string')
      throw this.unexpected(v, `missing a value after "${field}${op.text}"`);
    const fieldOp = (op.text === ':' ? '=' : op.text) as FieldOp;
    const bound = field.toLowerCase();
    if ((bound === 'earliest' || bound === 'latest') && fieldOp === '=') return this.timeBound(bound, v);
    const valueDirective = v.kind === 'word' ? this.directiveAhead(v) : undefined;
    if (valueDirective === 'TERM') throw this.fail('TERM() applies to search terms, not to field values', v);
    if (valueDirective === 'CASE') {
      if (fieldOp !== '=' && fieldOp !== '!=') throw this.fail(`CASE() applies to "=" and "!=", not "${op.text}"`, v);
      const value = this.directiveText('CASE');
      return { kind: 'field', field, op: fieldOp, value, quoted: false, caseSensitive: true };
    }
    return { kind: 'field', field, op: fieldOp, value: v.text, quoted: v.kind === 'string' };
  }

  private timeBound(bound: 'earliest' | 'latest', v: Token): SearchNode {
    try {
      parseTime(v.text, Date.now());
    } catch (e) {
      // a value of the wrong shape gets the parser's wording; a known unit or a range error says so
      if (!(e as Error).message.startsWith('cannot parse')) throw this.fail(`${bound}: ${(e as Error).message}`, v);
      throw this.fail(
        `cannot parse ${bound} time ${JSON.stringify(v.text)}: want RFC 3339, epoch seconds, now or relative like -15m`,
        v,
      );
    }
    return { kind: 'time', bound, value: v.text, quoted: v.kind === 'string' };
  }

  /** `CASE("Shutting down")`: the phrase with its case as written. */
  private casePhrase(): SearchNode {
    this.next('search');
    const s = this.next('search');
    if (s.kind !== 'string' || s.text === '') throw this.fail('missing text inside the phrase ""', s);
    this.expectOp(')', 'search');
    return { kind: 'phrase', text: s.text, caseSensitive: true };
  }

  /** `TERM` or `CASE` when `t` is that word (in capitals, as Splunk writes them) with `(` glued to it. */
  private directiveAhead(t: Token): 'TERM' | 'CASE' | undefined {
    if (t.text !== 'TERM' && t.text !== 'CASE') return undefined;
    return this.gluedAfter(t)?.raw === '(' ? t.text : undefined;
  }

  /**
   * The text inside `TERM(…)`/`CASE(…)`, read as written up to `)`: one term without spaces or
   * quotes (Splunk's `<term>`). TERM's may not hold a major breaker (Splunk indexes no term with
   * one, so it could never match).
   */
  private directiveText(name: 'TERM' | 'CASE'): string {
    const open = this.next('search');
    const start = open.pos + 1;
    if (this.src[start] === '"') return this.quotedDirectiveText(name, start);
    let j = start;
    while (j < this.src.length && !/[\s)"|]/.test(this.src[j])) j++;
    if (this.src[j] !== ')')
      throw parseError(
        `missing ")" closing ${name}(: it takes one term without spaces or quotes`,
        j,
        this.src[j] ?? '',
      );
    this.lex.seek(j + 1);
    return this.checkDirectiveText(name, this.src.slice(start, j), start);
  }

  /** `TERM("group=cascading")`: the quotes only delimit the term; what it holds follows the bare form's rule. */
  private quotedDirectiveText(name: 'TERM' | 'CASE', start: number): string {
    this.lex.seek(start);
    const s = this.next('search');
    const bad = /[\s)"|]/.exec(s.text);
    if (bad)
      throw parseError(
        `${name}() takes one term without spaces, quotes, ")" or "|": ${JSON.stringify(bad[0])} is not part of one`,
        s.pos,
        s.raw,
      );
    this.expectOp(')', 'search');
    return this.checkDirectiveText(name, s.text, start + 1);
  }

  /** `at`: the offset of the term's first character, for errors. */
  private checkDirectiveText(name: 'TERM' | 'CASE', text: string, at: number): string {
    if (text === '' || /^\*+$/.test(text)) throw parseError(`missing a term inside ${name}()`, at, text);
    const breaker = name === 'TERM' ? /[[\]<>(){}!;,'&?+]/.exec(text) : null;
    if (breaker)
      throw parseError(
        `TERM() cannot hold ${JSON.stringify(breaker[0])}, a major breaker: no indexed term contains one`,
        at + breaker.index,
        breaker[0],
      );
    return text;
  }

  /**
   * `field IN (v1, v2, …)` after the word `field`: true when any value equals, as `field=v` would
   * (unquoted `*` a wildcard, quoted literal). Read as the OR of those filters. `IN` is an operator
   * only in capitals and before `(`; otherwise it stays a word.
   */
  private inListAhead(t: Token): SearchNode | undefined {
    if (!this.isWord(this.peek('search'), 'IN')) return undefined;
    const back = this.lex.position;
    const inTok = this.next('search');
    const open = this.peek('search');
    if (open.kind !== 'op' || open.text !== '(') {
      this.lex.seek(back);
      return undefined;
    }
    if (!isFieldName(t.text)) throw this.fail(`invalid field name ${JSON.stringify(t.text)}`, t);
    this.next('search');
    const items: SearchNode[] = this.nest(inTok, () => this.inValues(t.text)).map((v) => ({
      kind: 'field',
      field: t.text,
      op: '=',
      value: v.text,
      quoted: v.quoted,
    }));
    return items.length === 1 ? items[0] : { kind: 'or', items };
  }

  /** The values of `IN (…)` after its `(`, up to and with its `)`: words and strings separated by commas. */
  private inValues(field: string): { text: string; quoted: boolean }[] {
    const out: { text: string; quoted: boolean }[] = [];
    let wantValue = true;
    for (;;) {
      const v = this.peek('value');
      if (v.kind === 'op' && v.text === ')') {
        if (out.length === 0) throw this.fail(`missing a value inside "${field} IN ()"`, v);
        if (wantValue) throw this.unexpected(v, 'missing a value after ","');
        this.next('value');
        return out;
      }
      if (v.kind === 'string') {
        if (!wantValue) throw this.unexpected(v, 'missing "," between values');
        this.next('value');
        this.countTerm(v);
        out.push({ text: v.text, quoted: true });
        wantValue = false;
      } else if (v.kind === 'word') {
        this.next('value');
        let at = v.pos;
        v.text.split(',').forEach((part, k) => {
          if (k > 0) {
            if (wantValue) throw parseError('unexpected ",": missing a value before it', at - 1, ',');
            wantValue = true;
          }
          if (part !== '') {
            if (!wantValue)
              throw parseError(`unexpected ${JSON.stringify(part)}: missing "," between values`, at, part);
            this.countTerm(v);
            out.push({ text: part, quoted: false });
            wantValue = false;
          }
          at += part.length + 1;
        });
      } else throw this.unexpected(v, `missing a value or ")" in "${field} IN (…)"`);
    }
  }

  /**
   * `[search …]`: the text up to the matching `]` (brackets inside quotes or nested brackets do
   * not close it), parsed as a whole query; errors point into the outer query.
   */
  subquery(what: string): Subquery {
    const { text: inner, start, open, close } = this.brackets(what);
    const lead = /^\s*search(?=\s|$)/i.exec(inner);
    let body = inner.slice(lead?.[0].length ?? 0);
    let at = start + (lead?.[0].length ?? 0);
    // `[inputlookup users | fields uid]`: Splunk lets a subsearch start with its generating command unpiped
    const first = lead ? undefined : /^\s*([A-Za-z_]\w*)/.exec(body);
    if (first && PIPES[first[1].toLowerCase()]?.generating) {
      body = `|${body}`;
      at--;
    }
    const sub = this.parseInside(what, body, at, open);
    this.lex.seek(close + 1);
    return sub;
  }

  bracketed(what: string): { text: string; start: number } {
    const { text, start, close } = this.brackets(what);
    this.lex.seek(close + 1);
    return { text, start };
  }

  subpipeline(what: string): Subquery['pipes'] {
    const { text, start, close } = this.brackets(what);
    const pipes = this.pipelineAt(what, text, start);
    this.lex.seek(close + 1);
    return pipes;
  }

  pipelineAt(what: string, text: string, start: number): PipeNode[] {
    // a pipeline reads rows: prefixing `|` makes the first command a pipe, as Splunk reads `[stats …]`
    return /^\s*\|/.test(text)
      ? this.parseInside(what, text, start, start - 1).pipes
      : this.parseInside(what, `|${text}`, start - 1, start - 1).pipes;
  }

  /** The bracketed text after the next `[`, up to its matching `]`. */
  private brackets(what: string): { text: string; start: number; open: number; close: number } {
    const open = this.lex.nextNonSpace();
    if (this.src[open] !== '[') throw this.unexpected(this.peek('search'), `missing ${what} in [brackets]`);
    let depth = 0;
    let close = -1;
    for (let i = open; i < this.src.length && close < 0; i++) {
      const c = this.src[i];
      if (c === '"' || c === "'") {
        for (i++; i < this.src.length && this.src[i] !== c; i++) if (this.src[i] === '\\') i++;
      } else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) close = i;
    }
    if (close < 0) throw parseError(`missing "]" closing the ${what}`, open, '[');
    const text = this.src.slice(open + 1, close);
    if (text.trim() === '') throw parseError(`missing a query inside the ${what}'s brackets`, open, '[');
    return { text, start: open + 1, open, close };
  }

  /** Parses `inner` (which starts at `start` in this query) as a whole query, one level deeper; errors point into this query. */
  private parseInside(what: string, inner: string, start: number, open: number): Query {
    if (inner.trim() === '' || inner.trim() === '|')
      throw parseError(`missing a query inside the ${what}'s brackets`, open, '[');
    if (this.depth >= MAX_NESTING) throw parseError(NESTING_MESSAGE, open, '[');
    let sub: Query;
    try {
      sub = parse(inner, this.depth + 1);
    } catch (e) {
      if (e instanceof SvcError && typeof e.details?.position === 'number')
        throw parseError(
          e.message,
          Math.max(e.details.position + start, open),
          typeof e.details.token === 'string' ? e.details.token : '',
        );
      throw e;
    }
    return sub;
  }

  searchInString(t: Token): SearchNode {
    // an escape makes the text shorter than the source: errors then point at the string itself
    const offset = t.raw.length === t.text.length + 2 ? t.pos + 1 : undefined;
    const inner = new QueryParser(t.text, this.depth + 1);
    try {
      if (inner.atPipeEnd()) throw inner.unexpected(inner.peek('search'), 'missing a search expression');
      const search = inner.parseSearch();
      const end = inner.peek('search');
      if (end.kind !== 'eof') throw inner.fail('a search expression here cannot hold a pipe "|"', end);
      return search;
    } catch (e) {
      if (!(e instanceof SvcError) || typeof e.details?.position !== 'number') throw e;
      const token = typeof e.details.token === 'string' ? e.details.token : '';
      throw offset === undefined
        ? parseError(e.message, t.pos, t.raw)
        : parseError(e.message, e.details.position + offset, token);
    }
  }

  // ---- pipes ----

  parsePipes(): PipeNode[] {
    const pipes: PipeNode[] = [];
    while (this.acceptOp('|', 'search')) {
      const cmd = this.next('expr');
      if (cmd.kind !== 'ident') throw this.unexpected(cmd, 'missing a command after "|"');
      const def = PIPES[cmd.text.toLowerCase()];
      if (!def) throw this.fail(`unknown command ${JSON.stringify(cmd.text)}`, cmd);
      pipes.push(def.parse(this, cmd));
      const end = this.peek('search');
      if (!(end.kind === 'eof' || (end.kind === 'op' && end.text === '|')))
        throw this.unexpected(end, `after "${cmd.text.toLowerCase()}"`);
    }
    return pipes;
  }
}

/** Parses a query (`depth`: levels of nesting around it, for a subsearch). Throws SvcError('invalid_query') with {position, token}. */
export function parse(q: string, depth = 0): Query {
  const p = new QueryParser(withoutComments(q), depth);
  let search = p.parseSearch();
  const pipes = p.parsePipes();
  const t = p.peek('search');
  if (t.kind !== 'eof') throw p.unexpected(t);
  // `| tstats count where <filter> by …`: its filter is the query's search part, so that the time
  // range, the scan's pruning and the fields found in the message work as for any search
  const lead = pipes[0] ? pipeDef(pipes[0]).searchPart?.(pipes[0]) : undefined;
  if (lead) search = lead;
  return { search, pipes };
}

/**
 * Commands without a search part (`eval x=1 | where y>2`, a `|` before the first optional): a
 * pipeline that runs over rows (foreach's template once its fields are substituted).
 */
export function parsePipeline(text: string, depth = 1): PipeNode[] {
  return parse(/^\s*\|/.test(text) ? text : `|${text}`, depth).pipes;
}

/**
 * One field name written as in a pipe's field list (`host`, `id.orig_h`, `"user name"`), without
 * wildcards: a parameter naming a field outside a query (`/api/histogram?by=`). Throws invalid_input
 * naming `param`.
 */
export function parseFieldName(text: string, param: string): string {
  const fail = (why: string) => new SvcError('invalid_input', `${param}: ${why}`, { details: { field: param } });
  const p = new QueryParser(text);
  let names: string[];
  try {
    names = p.fieldList('a field name');
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (p.peek('search').kind !== 'eof' || names.length !== 1)
    throw fail(`want one field name, not ${JSON.stringify(text)}`);
  if (names[0].includes('*')) throw fail(`want one field name without wildcards, not ${JSON.stringify(text)}`);
  return names[0];
}
