import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { toStr } from '../expr/coerce.js';
import { str } from '../sql.js';
import { pushFound } from '../extract/extract-stage.js';
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
  doc: doc(
    'rex [field=<field>] "<regex>"',
    'Extracts fields from text with the named groups of a regex (RE2), from message unless field= names another.',
    '* | rex "user=(?<user>\\w+) took (?<ms>\\d+)ms"',
  ),
  parse(p) {
    const field = parseFieldOption(p);
    const t = p.next('expr');
    if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted regex after "rex"`, t);
    if (UNSUPPORTED.test(t.text))
      throw p.fail(`cannot use lookaround or backreferences in rex regex ${quoteString(t.text)}`, t);
    try {
      new RegExp(t.text.replace(/\(\?P</g, '(?<'));
    } catch (e) {
      throw p.fail(
        `cannot parse rex regex ${quoteString(t.text)}: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
        t,
      );
    }
    if (namedGroups(t.text).length === 0)
      throw p.fail(`missing a named group (?<name>...) in rex regex ${quoteString(t.text)}`, t);
    return { kind: 'rex', field, regex: t.text };
  },
  print: (n) => `rex ${n.field !== undefined ? `field=${n.field} ` : ''}${quoteString(n.regex)}`,
  reads: (n) => [n.field ?? 'message'],
  writes: (n) => namedGroups(n.regex).map((g) => g.name),
  compile(n, b) {
    const src = toStr(b.col(n.field ?? 'message'));
    const re2 = n.regex.replace(/\(\?<(?![=!])/g, '(?P<');
    // a row where the regex does not match keeps its values; the groups are untyped text like any
    // extracted value: numbers compare, sort and aggregate as numbers (Splunk)
    pushFound(
      b,
      namedGroups(n.regex).map((g) => ({
        name: g.name,
        sql: `nullif(regexp_extract(${src}, ${str(re2)}, ${g.index}), '')`,
      })),
    );
  },
};
