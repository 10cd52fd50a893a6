/**
 * Loki stream selectors in the push request: `{app="web", env="prod", msg="say \"hi\""}`.
 * Pure parsing; Go-style escapes (\\ \" \n \t) in values.
 */

export class LabelSyntaxError extends Error {}

const NAME_RE = /[a-zA-Z_][a-zA-Z0-9_.]*/y;

function unescape(c: string): string {
  if (c === 'n') return '\n';
  if (c === 't') return '\t';
  if (c === 'r') return '\r';
  return c;
}

/** Reads a quoted value at i (after the opening quote); returns [value, index after closing quote]. */
function quoted(s: string, i: number): [string, number] {
  let out = '';
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '\\' && j + 1 < s.length) out += unescape(s[++j]);
    else if (c === '"') return [out, j + 1];
    else out += c;
  }
  throw new LabelSyntaxError(`unterminated label value in ${JSON.stringify(s)}`);
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n')) i++;
  return i;
}

export function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = skipWs(s, 0);
  if (s[i] !== '{') throw new LabelSyntaxError(`cannot parse labels ${JSON.stringify(s)}: missing "{"`);
  i = skipWs(s, i + 1);
  while (i < s.length && s[i] !== '}') {
    NAME_RE.lastIndex = i;
    const m = NAME_RE.exec(s);
    if (!m)
      throw new LabelSyntaxError(
        `cannot parse labels ${JSON.stringify(s)}: unexpected ${JSON.stringify(s[i])} at ${i}`,
      );
    i = skipWs(s, i + m[0].length);
    if (s[i] !== '=') throw new LabelSyntaxError(`cannot parse labels ${JSON.stringify(s)}: missing "=" after ${m[0]}`);
    i = skipWs(s, i + 1);
    if (s[i] !== '"') throw new LabelSyntaxError(`cannot parse labels ${JSON.stringify(s)}: missing quote for ${m[0]}`);
    const [value, next] = quoted(s, i + 1);
    out[m[0]] = value;
    i = skipWs(s, next);
    if (s[i] === ',') i = skipWs(s, i + 1);
  }
  if (s[i] !== '}') throw new LabelSyntaxError(`cannot parse labels ${JSON.stringify(s)}: missing "}"`);
  return out;
}
