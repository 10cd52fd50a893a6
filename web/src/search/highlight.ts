import { firstPipe } from './query-edit';

/**
 * The free-text terms of a query, for highlighting them in messages: bare words and "phrases" of
 * the search part, without field tests, boolean operators or negated terms. `foo*` is a prefix.
 */
export function searchTerms(query: string): RegExp | null {
  const pipe = firstPipe(query);
  const s = pipe < 0 ? query : query.slice(0, pipe);
  const terms: string[] = [];
  const re = /(-?)"((?:[^"\\]|\\.)*)"|(\S+)/g;
  let m: RegExpExecArray | null;
  let negateNext = false;
  while ((m = re.exec(s))) {
    if (m[2] !== undefined) {
      if (!m[1] && !negateNext) terms.push(bounded(m[2].replace(/\\(.)/g, '$1'), escape(m[2].replace(/\\(.)/g, '$1'))));
      negateNext = false;
      continue;
    }
    const w = m[3].replace(/^\(+|\)+$/g, '');
    if (/^(AND|OR)$/.test(w)) continue;
    if (w === 'NOT') {
      negateNext = true;
      continue;
    }
    const negated = negateNext || w.startsWith('-');
    negateNext = false;
    // field tests (`a=b`, `a:b`, `a>1`) and bare `*` match no text of their own
    if (negated || w === '*' || /[=<>]/.test(w) || /^[A-Za-z_@][\w.@-]*:/.test(w) || w === '') continue;
    terms.push(bounded(w.replace(/\*/g, ''), escape(w).replace(/\\\*/g, '\\S*')));
  }
  const uniq = [...new Set(terms.filter((t) => t.length > 0))];
  if (uniq.length === 0) return null;
  // longest first, so a phrase wins over a word inside it
  uniq.sort((a, b) => b.length - a.length);
  return new RegExp(uniq.join('|'), 'gi');
}

/** Terms match whole tokens (as svc's search does): word boundaries where the term has word characters at its ends. */
function bounded(plain: string, pattern: string): string {
  if (plain.length === 0) return '';
  const word = /[A-Za-z0-9_]/;
  return `${word.test(plain[0]) ? '\\b' : ''}${pattern}${word.test(plain[plain.length - 1]) && !pattern.endsWith('\\S*') ? '\\b' : ''}`;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface Segment {
  text: string;
  hit: boolean;
}

/** Splits text into plain and highlighted pieces. */
export function segments(text: string, re: RegExp | null): Segment[] {
  if (!re || text.length === 0) return [{ text, hit: false }];
  const out: Segment[] = [];
  let last = 0;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) out.push({ text: text.slice(last, m.index), hit: false });
    out.push({ text: m[0], hit: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), hit: false });
  return out;
}
