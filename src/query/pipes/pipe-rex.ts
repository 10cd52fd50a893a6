import { doc } from '../doc.js';
import { describe, printIdent, quoteString, type Token } from '../lexer.js';
import { toStr } from '../expr/coerce.js';
import { toList } from '../expr/mv-functions.js';
import type { Parser } from '../parser-api.js';
import { str } from '../sql.js';
import { pushFound } from '../extract/extract-stage.js';
import type { PipeDef } from './pipe.js';
import { PipeOptions } from './pipe-options.js';
import { namedGroups } from '../extract/regex-groups.js';
import { parseSed, sedSql, type Sed } from './rex-sed.js';

/**
 * `rex [field=f] [max_match=N] "(?<name>...)"`: named groups of the regex (RE2 syntax) become
 * fields; f defaults to message. A row where the regex does not match keeps its previous value of
 * those fields. With max_match other than 1, each field holds the values of up to N matches (0: all)
 * as a multivalue. `rex [field=f] mode=sed "s/re/with/[g]"` replaces text in f instead.
 */
export interface RexPipe {
  kind: 'rex';
  field?: string;
  /** 1 unless given; 0 is every match. */
  maxMatch?: number;
  /** mode=sed: the regex is a sed expression. */
  sed?: boolean;
  regex: string;
}

export { namedGroups };

const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;
const OPTIONS = ['field', 'max_match', 'mode'] as const;
const MAX_MATCH = 10_000;

/** Checks a regex where JavaScript can: RE2's inline flags (`(?s)`, `(?i:…)`) are taken out first. */
function checkRegex(p: Parser, t: Token, re: string): void {
  if (UNSUPPORTED.test(re)) throw p.fail(`cannot use lookaround or backreferences in rex regex ${quoteString(re)}`, t);
  try {
    new RegExp(
      re
        .replace(/\(\?P</g, '(?<')
        .replace(/\(\?[imsU]+\)/g, '')
        .replace(/\(\?[imsU]+:/g, '(?:'),
    );
  } catch (e) {
    throw p.fail(
      `cannot parse rex regex ${quoteString(re)}: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
      t,
    );
  }
}

/** The field after `field=`: a name, or double-quoted as Splunk users also write it (`field="search"`). */
function fieldValue(p: Parser): string {
  const t = p.peek('expr');
  if (t.kind !== 'string') return p.fieldName('a field after "field="');
  p.next('expr');
  if (t.text === '') throw p.fail('missing text inside the field name ""', t);
  return t.text;
}

function parseRex(p: Parser): RexPipe {
  const n: RexPipe = { kind: 'rex', regex: '' };
  const opts = new PipeOptions(p, OPTIONS);
  // options before the regex or, as Splunk also takes them, after it
  const readOptions = () => {
    for (let name = opts.next(); name !== undefined; name = opts.next()) {
      if (name === 'field') n.field = fieldValue(p);
      else if (name === 'max_match') n.maxMatch = opts.count(name, MAX_MATCH);
      else {
        const v = p.next('expr');
        if (v.kind !== 'ident' || v.text.toLowerCase() !== 'sed')
          throw p.fail(`unexpected ${describe(v)}: rex takes only mode=sed`, v);
        n.sed = true;
      }
    }
  };
  readOptions();
  const t = p.next('expr');
  if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted regex after "rex"`, t);
  n.regex = t.text;
  readOptions();
  if (n.sed) {
    if (n.maxMatch !== undefined) throw p.fail('rex takes max_match or mode=sed, not both', t);
    parseSed(p, t);
    return n;
  }
  checkRegex(p, t, t.text);
  if (namedGroups(t.text).length === 0)
    throw p.fail(`missing a named group (?<name>...) in rex regex ${quoteString(t.text)}`, t);
  if (n.maxMatch === 1) delete n.maxMatch;
  return n;
}

function printRex(n: RexPipe): string {
  const opts = [
    n.field !== undefined ? `field=${printIdent(n.field)}` : '',
    n.maxMatch !== undefined ? `max_match=${n.maxMatch}` : '',
    n.sed ? 'mode=sed' : '',
  ].filter(Boolean);
  return ['rex', ...opts, quoteString(n.regex)].join(' ');
}

export const rexPipe: PipeDef<RexPipe> = {
  name: 'rex',
  doc: doc(
    'rex [field=<field>] [max_match=<N>] [mode=sed] "<regex>"',
    'Extracts fields from text with the named groups of a regex (RE2), from message unless field= names another; max_match=N keeps up to N matches (0: all) as multivalues; mode=sed "s/re/with/g" replaces text in the field.',
    '* | rex "user=(?<user>\\w+) took (?<ms>\\d+)ms"',
  ),
  parse: parseRex,
  print: printRex,
  reads: (n) => [n.field ?? 'message'],
  writes: (n) => (n.sed ? [n.field ?? 'message'] : namedGroups(n.regex).map((g) => g.name)),
  compile(n, b) {
    const field = n.field ?? 'message';
    const col = b.col(field);
    // a multivalue (`rex field=a{}.b`) is read at its first value
    const src = col.type === 'list' ? `${col.sql}[1]` : toStr(col);
    if (n.sed) {
      const sed: Sed = parseSed(undefined, undefined, n.regex);
      b.setColumns([{ name: field, sql: sedSql(src, sed), type: b.col(field).type === 'str' ? 'str' : 'any' }]);
      return;
    }
    const re2 = n.regex.replace(/\(\?<(?![=!])/g, '(?P<');
    const groups = namedGroups(n.regex);
    if (n.maxMatch === undefined) {
      // a row where the regex does not match keeps its values; the groups are untyped text like any
      // extracted value: numbers compare, sort and aggregate as numbers (Splunk)
      pushFound(
        b,
        groups.map((g) => ({ name: g.name, sql: `nullif(regexp_extract(${src}, ${str(re2)}, ${g.index}), '')` })),
      );
      return;
    }
    // every match's value, up to max_match, as a list; no match keeps the field's value (as a list)
    b.setColumns(
      groups.map((g) => {
        const every = `regexp_extract_all(${src}, ${str(re2)}, ${g.index})`;
        const all = n.maxMatch === 0 ? every : `list_slice(${every}, 1, ${n.maxMatch})`;
        const found = `CASE WHEN len(${all}) = 0 THEN NULL ELSE ${all} END`;
        const prev = b.schema.has(g.name) ? `, ${toList(b.col(g.name))}` : '';
        return { name: g.name, sql: prev ? `coalesce(${found}${prev})` : found, type: 'list' as const };
      }),
    );
  },
};
