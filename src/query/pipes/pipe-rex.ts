import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { toStr } from '../expr/coerce.js';
import { ident, str } from '../sql.js';
import type { PipeDef } from './pipe.js';

/**
 * `rex [field=f] "(?<name>...)"`: named groups of the regex (RE2 syntax) become fields; f defaults
 * to message. A row where the regex does not match keeps its previous value of those fields.
 */
export interface RexPipe {
  kind: 'rex';
  field?: string;
  regex: string;
}

/** Named groups with their 1-based capture index, for regexp_extract. */
export function namedGroups(re: string): { name: string; index: number }[] {
  const out: { name: string; index: number }[] = [];
  let index = 0;
  let inClass = false;
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    if (c !== '(') continue;
    const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(re.slice(i));
    if (named) out.push({ name: named[1], index: ++index });
    else if (re[i + 1] !== '?') index++;
  }
  return out;
}

const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;

export const rexPipe: PipeDef<RexPipe> = {
  name: 'rex',
  doc: doc('rex [field=<field>] "<regex>"', 'Extracts fields from text with the named groups of a regex (RE2), from message unless field= names another.', '* | rex "user=(?<user>\\w+) took (?<ms>\\d+)ms"'),
  parse(p) {
    let field: string | undefined;
    if (p.acceptKeyword('field')) {
      p.expectOp('=', 'expr');
      field = p.fieldName('a field after "field="');
    }
    const t = p.next('expr');
    if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted regex after "rex"`, t);
    if (UNSUPPORTED.test(t.text)) throw p.fail(`cannot use lookaround or backreferences in rex regex ${quoteString(t.text)}`, t);
    try {
      new RegExp(t.text.replace(/\(\?P</g, '(?<'));
    } catch (e) {
      throw p.fail(`cannot parse rex regex ${quoteString(t.text)}: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`, t);
    }
    if (namedGroups(t.text).length === 0) throw p.fail(`missing a named group (?<name>...) in rex regex ${quoteString(t.text)}`, t);
    return { kind: 'rex', field, regex: t.text };
  },
  print: (n) => `rex ${n.field !== undefined ? `field=${n.field} ` : ''}${quoteString(n.regex)}`,
  reads: (n) => [n.field ?? 'message'],
  writes: (n) => namedGroups(n.regex).map((g) => g.name),
  compile(n, b) {
    const src = toStr(b.col(n.field ?? 'message'));
    const re2 = n.regex.replace(/\(\?<(?![=!])/g, '(?P<');
    const schema = new Map(b.schema);
    const replace: string[] = [];
    const add: string[] = [];
    for (const g of namedGroups(n.regex)) {
      const extracted = `nullif(regexp_extract(${src}, ${str(re2)}, ${g.index}), '')`;
      if (b.schema.has(g.name)) replace.push(`coalesce(${extracted}, ${toStr(b.col(g.name))}) AS ${ident(g.name)}`);
      else add.push(`${extracted} AS ${ident(g.name)}`);
      schema.set(g.name, 'str');
    }
    const star = replace.length ? `* REPLACE (${replace.join(', ')})` : '*';
    b.push(`SELECT ${[star, ...add].join(', ')} FROM ${b.cur}`, schema);
  },
};
