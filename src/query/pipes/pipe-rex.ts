import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { toStr } from '../expr/coerce.js';
import { ident, str } from '../sql.js';
import type { PipeDef } from './pipe.js';
import { parseFieldOption } from './pipe-options.js';
import { namedGroups } from '../extract/regex-groups.js';

/**
 * `rex [field=f] "(?<name>...)"`: named groups of the regex (RE2 syntax) become fields; f defaults
 * to message. A row where the regex does not match keeps its previous value of those fields.
 */
export interface RexPipe {
  kind: 'rex';
  field?: string;
  regex: string;
}

export { namedGroups };

const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;

export const rexPipe: PipeDef<RexPipe> = {
  name: 'rex',
  doc: doc('rex [field=<field>] "<regex>"', 'Extracts fields from text with the named groups of a regex (RE2), from message unless field= names another.', '* | rex "user=(?<user>\\w+) took (?<ms>\\d+)ms"'),
  parse(p) {
    const field = parseFieldOption(p);
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
      // untyped like any extracted text: numbers compare, sort and aggregate as numbers (Splunk)
      schema.set(g.name, 'any');
    }
    const star = replace.length ? `* REPLACE (${replace.join(', ')})` : '*';
    b.push(`SELECT ${[star, ...add].join(', ')} FROM ${b.cur}`, schema);
  },
};
