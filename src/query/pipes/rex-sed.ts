import type { Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { str } from '../sql.js';

/**
 * `rex mode=sed "s/<regex>/<replacement>/<flags>"`: sed's substitution, as Splunk runs it on a
 * field. The delimiter is the character after `s`; `\<delimiter>` stands for it inside the parts;
 * in the replacement `\1`… are the groups and `&` the whole match. Flags: `g` every match, none the
 * first. Splunk's Nth-match flag and `y/…/…/` (transliteration) are refused.
 */
export interface Sed {
  regex: string;
  replacement: string;
  global: boolean;
}

/** The parts of a sed expression cut at unescaped delimiters; `\<delimiter>` becomes the delimiter. */
function cut(body: string, delim: string): string[] {
  const parts: string[] = [''];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && body[i + 1] === delim) {
      parts[parts.length - 1] += delim;
      i++;
    } else if (c === '\\' && i + 1 < body.length) {
      parts[parts.length - 1] += c + body[++i];
    } else if (c === delim) parts.push('');
    else parts[parts.length - 1] += c;
  }
  return parts;
}

/** sed's replacement in RE2's: `&` is `\0`, `\&` a literal `&`, `\1`… stay. */
function replacementRe2(r: string): string {
  let out = '';
  for (let i = 0; i < r.length; i++) {
    if (r[i] === '\\' && r[i + 1] === '&') {
      out += '&';
      i++;
    } else if (r[i] === '\\' && i + 1 < r.length) {
      out += r[i] + r[++i];
    } else out += r[i] === '&' ? '\\0' : r[i];
  }
  return out;
}

/** Reads a sed expression; `p`/`t` report errors at the string while parsing (compile passes none: parsed already). */
export function parseSed(p: Parser | undefined, t: Token | undefined, text = t?.text ?? ''): Sed {
  const fail = (why: string) =>
    p && t ? p.fail(`cannot use the sed expression ${JSON.stringify(text)}: ${why}`, t) : new Error(`BUG: ${why}`);
  if (text.startsWith('y')) throw fail('transliteration (y/…/…/) is not supported');
  if (!text.startsWith('s') || text.length < 2) throw fail('want s/<regex>/<replacement>/[g]');
  const parts = cut(text.slice(2), text[1]);
  if (parts.length !== 3) throw fail('want s/<regex>/<replacement>/[g]');
  const [regex, replacement, flags] = parts;
  if (regex === '') throw fail('the regex is empty');
  if (!/^g?$/.test(flags)) throw fail(`unknown flags "${flags}": only g (every match) is supported`);
  return { regex, replacement: replacementRe2(replacement), global: flags === 'g' };
}

/** SQL replacing in the text `src`. */
export function sedSql(src: string, sed: Sed): string {
  return `regexp_replace(${src}, ${str(sed.regex)}, ${str(sed.replacement)}${sed.global ? ", 'g'" : ''})`;
}
