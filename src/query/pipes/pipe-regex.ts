import { doc } from '../doc.js';
import { describe, printIdent, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { toStr } from '../expr/coerce.js';
import { str } from '../sql.js';
import type { PipeDef } from './pipe.js';

/**
 * `regex [<field>=|<field>!=]"<regex>"` (Splunk's regex command): keeps the rows whose field
 * (message when none is named, Splunk's _raw) matches the regex anywhere in its value, or with `!=`
 * the rows whose field does not match, rows without the field included. Case-sensitive unless the
 * regex says `(?i)`. RE2 syntax: Splunk's PCRE lookaround and backreferences are refused, not
 * read differently.
 */
export interface RegexPipe {
  kind: 'regex';
  field: string;
  negate: boolean;
  regex: string;
}

const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;

function parseRegex(p: Parser): RegexPipe {
  let field = 'message';
  let negate = false;
  if (p.peek('expr').kind === 'ident') {
    field = p.fieldName('a field name');
    const op = p.next('expr');
    if (op.kind !== 'op' || (op.text !== '=' && op.text !== '!='))
      throw p.unexpected(op, `missing "=" or "!=" and a quoted regex after "${field}"`);
    negate = op.text === '!=';
  }
  const t = p.next('expr');
  if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted regex`, t);
  if (t.text === '') throw p.fail('missing a regex inside the quotes', t);
  if (UNSUPPORTED.test(t.text))
    throw p.fail(`cannot use lookaround or backreferences (RE2 syntax) in regex ${quoteString(t.text)}`, t);
  try {
    new RegExp(t.text.replace(/\(\?P</g, '(?<').replace(/\(\?[imsU]+\)/g, ''));
  } catch (e) {
    throw p.fail(
      `cannot parse regex ${quoteString(t.text)}: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
      t,
    );
  }
  return { kind: 'regex', field, negate, regex: t.text };
}

export const regexPipe: PipeDef<RegexPipe> = {
  name: 'regex',
  doc: doc(
    'regex [<field>=|<field>!=]"<regex>"',
    'Keeps the rows whose field (message unless named) matches the regex (RE2), or with != those that do not.',
    '* | regex user="^adm_[0-9]+$"',
  ),
  parse: parseRegex,
  print: (n) =>
    `regex ${n.field === 'message' && !n.negate ? '' : `${printIdent(n.field)}${n.negate ? '!=' : '='}`}${quoteString(n.regex)}`,
  reads: (n) => [n.field],
  writes: () => [],
  compile(n, b) {
    const col = b.col(n.field);
    const re2 = n.regex.replace(/\(\?<(?![=!])/g, '(?P<');
    const match = col.sql === 'NULL' ? 'FALSE' : `coalesce(regexp_matches(${toStr(col)}, ${str(re2)}), FALSE)`;
    b.push(`SELECT * FROM ${b.cur} WHERE ${n.negate ? `NOT ${match}` : match}`);
  },
};
