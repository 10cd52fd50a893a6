/**
 * Edits of the query text that the UI makes for the user: include or exclude a field value.
 * The value is quoted exactly as the language's lexer reads strings, so any text is safe.
 */
import { valueText } from '../ui/format';

/** `"a \"b\""`: the language's string literal (the lexer unescapes \" and \\ only). */
export function quoteValue(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') out += i + 1 === s.length || s[i + 1] === '\\' || s[i + 1] === '"' ? '\\\\' : '\\';
    else out += c === '"' ? '\\"' : c;
  }
  return out + '"';
}

const BARE_FIELD = /^[A-Za-z_@][A-Za-z0-9_.@-]*$/;

function term(field: string, value: unknown): string {
  const name = BARE_FIELD.test(field) ? field : quoteValue(field);
  const v = typeof value === 'number' || typeof value === 'boolean' ? String(value) : quoteValue(valueText(value));
  return `${name}=${v}`;
}

/** Adds `field=value` (or `NOT field=value`) to the search part, before the first pipe. */
export function addFilter(query: string, field: string, value: unknown, exclude = false): string {
  const t = (exclude ? 'NOT ' : '') + term(field, value);
  const pipe = firstPipe(query);
  const search = (pipe < 0 ? query : query.slice(0, pipe)).trim();
  const rest = pipe < 0 ? '' : ' ' + query.slice(pipe).trim();
  const base = search === '' || search === '*' ? '' : search + ' ';
  return `${base}${t}${rest}`;
}

/** Offset of the first `|` outside quotes, or -1. */
export function firstPipe(q: string): number {
  let inStr = false;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (inStr && c === '\\') i++;
    else if (c === '"') inStr = !inStr;
    else if (c === '|' && !inStr) return i;
  }
  return -1;
}
