import type { SvcError } from '../errors/svc-error.js';
import type { LexMode, Token } from './lexer.js';
import type { ListItem } from './pipes/field-names.js';
import type { SearchNode } from './search/filter-logic.js';

/**
 * A query inside a pipe (`append [search …]`): its pipes typed loosely, since the pipe modules
 * cannot import the registry that lists them; compile.ts compiles it like the main query.
 */
export interface Subquery {
  search: SearchNode;
  pipes: { kind: string }[];
}

/**
 * The parser as the construct modules (pipes/, expr/) see it: the token helpers they parse their
 * syntax with. An interface of its own so that they need not import parser.ts, which imports them
 * (through the pipe registry); parser.ts's QueryParser implements it. Errors are
 * SvcError('invalid_query') with details {position, token}.
 */
export interface Parser {
  peek(mode: LexMode): Token;
  next(mode: LexMode): Token;
  /** The error to throw at `t`. */
  fail(message: string, t: Token): SvcError;
  unexpected(t: Token, hint?: string): SvcError;
  acceptOp(op: string, mode: LexMode): boolean;
  expectOp(op: string, mode: LexMode): Token;
  /** Consumes an unquoted keyword (case-insensitive) when it comes next. */
  acceptKeyword(word: string): boolean;
  /** True at `|` or the end of the query. */
  atPipeEnd(): boolean;
  /** A field name in an expression context (`'quoted name'` allowed). */
  fieldName(what: string): string;
  /** A positive integer argument. */
  positiveInt(what: string): number;
  /** True when a plain integer comes next. */
  intAhead(): boolean;
  /** Field names of a list, without signs or functions (see listItems). */
  fieldList(what: string, opts?: { stop?: string[]; allowEmpty?: boolean }): string[];
  /** Field names separated by commas and/or spaces, up to `|`, the end or a stop keyword (parser.ts). */
  listItems(
    what: string,
    opts?: { stop?: string[]; signs?: boolean; fns?: string[]; allowEmpty?: boolean },
  ): ListItem[];
  /** Runs `fn` one level of nesting deeper; throws invalid_query at `t` past MAX_NESTING (parser.ts). */
  nest<T>(t: Token, fn: () => T): T;
  /** A whole query in square brackets, `search` before it optional (Splunk's subsearch). */
  subquery(what: string): Subquery;
  /**
   * The commands in square brackets that run over the current rows (`appendpipe [stats …]`,
   * Splunk's subpipeline): no search part, a `|` before the first optional.
   */
  subpipeline(what: string): Subquery['pipes'];
  /** The raw text in square brackets and its offset in the query (foreach's template), read past. */
  bracketed(what: string): { text: string; start: number };
  /** Parses `text`, which stands at offset `start` of the query, as a pipeline (see subpipeline); errors point there. */
  pipelineAt(what: string, text: string, start: number): Subquery['pipes'];
  /**
   * A search-part expression up to `|` or the end, read by the same grammar as the part before
   * the first pipe (parser.ts parseSearch): what `| search` filters by. Empty: MATCH_ALL. `stop`:
   * words (lower case) that also end it, unquoted in any case (`by` after tstats' where).
   */
  parseSearch(stop?: readonly string[]): SearchNode;
  /**
   * True when `cmd` is the query's first command with nothing but `|` before it (`| inputlookup
   * users`): the place of a generating command, which makes rows instead of reading events.
   */
  leading(cmd: Token): boolean;
  /**
   * The text of a string token read as a search-part expression (eval's `searchmatch("…")`), by
   * the same grammar; its errors point into the string (at its start when it holds escapes).
   */
  searchInString(t: Token): SearchNode;
}
