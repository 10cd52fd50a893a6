import { quoteString } from '../lexer.js';
import { reEscape, str } from '../sql.js';
import { isWordChar, requiredTokensOf } from './tokens.js';

/**
 * A bare word matched as a whole token of the message, case-insensitively; `*` inside is a wildcard.
 * `TERM(x)`: x matched between major breakers (see termDirectiveSql); `CASE(x)`: matched as a term,
 * but with the case as written.
 */
export interface TermFilter {
  kind: 'term';
  text: string;
  directive?: 'TERM' | 'CASE';
}

/** A quoted phrase matched as a contiguous substring of the message at token boundaries. */
export interface PhraseFilter {
  kind: 'phrase';
  text: string;
  /** `CASE("…")`: with its case as written. */
  caseSensitive?: boolean;
}

export const printTerm = (f: TermFilter): string => (f.directive ? `${f.directive}(${f.text})` : f.text);
export const printPhrase = (f: PhraseFilter): string =>
  f.caseSensitive ? `CASE(${quoteString(f.text)})` : quoteString(f.text);

/**
 * SQL that is true when `text` (with `*` wildcards when `wild`) occurs in the message as whole tokens,
 * case-insensitively.
 * fast path: a case-insensitive literal regex per piece (RE2 scans for a literal fast, and unlike
 * `contains(lower(message), …)` it lowercases nothing) rejects most rows; only the survivors pay
 * for the exact token-boundary regex. Measured (2 cores, 1M messages, DuckDB 1.5; reading the
 * messages alone, `contains` of an absent literal, takes 80-90 ms): `(?i)literal` 135-140 ms, whatever
 * the literal; `contains(lower(…))` 200-280, `lower(…) LIKE` 230, `ILIKE` 620, an OR of
 * `contains` over the casings of a 3-4 letter piece 240-380, `regexp_full_match` or
 * `regexp_extract` (which DuckDB pushes into the Parquet scan, unlike `regexp_matches`) 160-390,
 * one alternation for several OR-ed terms 370 against 260 for three literals; the boundary regex
 * alone 385 (with `\b` RE2 loses its literal scan).
 */
export function matchMessageSql(text: string, wild: boolean): string {
  if (wild && /^\*+$/.test(text)) return 'TRUE';
  const pieces = wild ? text.split('*') : [text];
  const prefilter = pieces.filter((p) => p.length > 0).map(prefilterSql);
  const { body, before, after } = termRegexParts(pieces);
  const exact = regexSql(`${before ? '\\b' : ''}${body}${after}`);
  // without boundaries to check, a case-insensitive literal is the exact test already
  if (!before && !after && pieces.length === 1 && !usesCaseless(text)) return `(${prefilter.join(' AND ')})`;
  // fast path: most tokens follow a space; ` token` keeps a literal for RE2 to scan for, so rows
  // that have it skip the boundary regex (a very common word, `for` in 16% of messages: 184 -> 166 ms)
  const check = before ? `(${regexSql(` ${body}${after}`)} OR ${exact})` : exact;
  return `(${[...prefilter, check].join(' AND ')})`;
}

/** The regex of a term's pieces (split at `*`) and whether its ends need a word boundary (`\b`). */
function termRegexParts(pieces: string[]): { body: string; before: boolean; after: string } {
  const last = pieces[pieces.length - 1];
  return {
    body: pieces.map(reEscape).join('\\S*'),
    before: isWordChar(pieces[0][0]),
    after: isWordChar(last[last.length - 1]) ? '\\b' : '',
  };
}

const regexSql = (re: string): string => `regexp_matches(message, ${str(`(?i)${re}`)})`;

/** The longest run of characters that have no case (digits, punctuation), e.g. the id in `blk_3886`. */
function longestCaseless(piece: string): string {
  let best = '';
  let cur = '';
  for (const c of piece) {
    cur = c.toLowerCase() === c.toUpperCase() ? cur + c : '';
    if (cur.length > best.length) best = cur;
  }
  return best;
}

/**
 * A necessary condition for `piece` in the message. fast path: a caseless run of 4+ characters
 * (ids, numbers, addresses) is found by a plain `contains`, 3-4x cheaper than a case-insensitive
 * regex (one 166k-event block: 40-60 ms against 170 ms); otherwise a `(?i)` literal regex.
 */
function prefilterSql(piece: string): string {
  if (usesCaseless(piece)) return `contains(message, ${str(longestCaseless(piece))})`;
  return regexSql(reEscape(piece));
}

function usesCaseless(piece: string): boolean {
  const run = longestCaseless(piece);
  return run.length >= 4 || (run.length > 0 && run === piece);
}

export function compileTerm(f: TermFilter): string {
  if (f.directive === 'TERM') return termDirectiveSql(f.text);
  if (f.directive === 'CASE') return caseDirectiveSql(f.text);
  return matchMessageSql(f.text, true);
}

/**
 * Splunk's major breakers (Search Manual, "Event segmentation"): whitespace and these. Splunk
 * indexes each run between them as one term, minor breakers (`.`, `:`, `=`, `/`, `-`, …) and all.
 */
const MAJOR_BREAKERS = `\\s\\[\\]<>(){}|!;,'"*&?+`;

/**
 * `TERM(x)`: x occurs in the message with a major breaker or the message's start or end on each
 * side, ignoring case; `*` in x stands for any run of characters that are not major breakers.
 * So `TERM(10.0.0.1)` matches `from 10.0.0.1 port` but neither `ip=10.0.0.1` nor `10.0.0.1:22`,
 * as in Splunk. fast path: x's whole-token match (a necessary condition, cheap to scan for) first.
 */
function termDirectiveSql(text: string): string {
  const body = text.split('*').map(reEscape).join(`[^${MAJOR_BREAKERS}]*`);
  const exact = regexSql(`(?:^|[${MAJOR_BREAKERS}])${body}(?:$|[${MAJOR_BREAKERS}])`);
  return `(${matchMessageSql(text, true)} AND ${exact})`;
}

/**
 * `CASE(x)`: the term x (whole tokens, `*` a wildcard) with the case as written. fast path: the
 * case-insensitive term first, the case-sensitive regex only on what it lets through.
 */
function caseDirectiveSql(text: string): string {
  return caseSensitiveSql(text, true);
}

/** A term (`wild`: `*` a wildcard) or phrase matched as matchMessageSql does, but with its case as written. */
function caseSensitiveSql(text: string, wild: boolean): string {
  const { body, before, after } = termRegexParts(wild ? text.split('*') : [text]);
  const exact = `regexp_matches(message, ${str(`${before ? '\\b' : ''}${body}${after}`)})`;
  return `(${matchMessageSql(text, wild)} AND ${exact})`;
}
export const compilePhrase = (f: PhraseFilter): string =>
  f.caseSensitive ? caseSensitiveSql(f.text, false) : matchMessageSql(f.text, false);

export const termTokens = (f: TermFilter): string[] => requiredTokensOf(f.text);
export const phraseTokens = (f: PhraseFilter): string[] => requiredTokensOf(f.text.replace(/\*/g, ' '));
