import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { reEscape } from '../sql.js';
import { parseFieldOption } from './pipe-options.js';
import { rexPipe } from './pipe-rex.js';

/**
 * `extract [field=f] "<ip> - - [<_>] \"<method> <uri> <_>\" <status>"`: a pattern of literal text
 * and `<name>` placeholders (`<_>` matches without keeping), found anywhere in field f (message by
 * default). A placeholder takes the text up to the literal that follows it; one at the end of the
 * pattern takes the rest of the text (Loki's `pattern`, VictoriaLogs' `extract`). A text where the
 * pattern is not found keeps its fields as they were.
 */
export interface ExtractPipe {
  kind: 'extract';
  field?: string;
  pattern: string;
}

const PLACEHOLDER = /<([A-Za-z_][A-Za-z0-9_]*)>/g;

/** The pattern as an RE2 regex with one named group per kept placeholder. */
export function patternRegex(pattern: string): string {
  let re = '';
  let last = 0;
  const matches = [...pattern.matchAll(PLACEHOLDER)];
  matches.forEach((m, i) => {
    re += reEscape(pattern.slice(last, m.index));
    const atEnd = i === matches.length - 1 && m.index + m[0].length === pattern.length;
    const body = atEnd ? '.*' : '.*?';
    re += m[1] === '_' ? `(?:${body})` : `(?P<${m[1]}>${body})`;
    last = m.index + m[0].length;
  });
  return `(?s)${re}${reEscape(pattern.slice(last))}`;
}

export const extractPipe: PipeDef<ExtractPipe> = {
  name: 'extract',
  doc: doc(
    'extract [field=<field>] "<pattern>"',
    'Extracts fields with a pattern of literal text and <name> placeholders (<_> to skip a part), found anywhere in a field, message by default.',
    '* | extract "<ip> - - [<_>] \\"<method> <uri> <_>\\" <status> <bytes> <_>" | stats count by status',
  ),
  parse(p) {
    const field = parseFieldOption(p);
    const t = p.next('expr');
    if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted pattern after "extract"`, t);
    const names = [...t.text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((n) => n !== '_');
    if (names.length === 0) throw p.fail(`missing a placeholder <name> in extract pattern ${quoteString(t.text)}`, t);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw p.fail(`the placeholder <${twice}> is used twice in extract pattern ${quoteString(t.text)}`, t);
    if (/<[A-Za-z_][A-Za-z0-9_]*><[A-Za-z_][A-Za-z0-9_]*>/.test(t.text))
      throw p.fail(`two placeholders need literal text between them in extract pattern ${quoteString(t.text)}`, t);
    return { kind: 'extract', field, pattern: t.text };
  },
  print: (n) => `extract ${n.field !== undefined ? `field=${printListName(n.field)} ` : ''}${quoteString(n.pattern)}`,
  reads: (n) => [n.field ?? 'message'],
  writes: (n) => [...n.pattern.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((x) => x !== '_'),
  compile(n, b) {
    rexPipe.compile({ kind: 'rex', field: n.field, regex: patternRegex(n.pattern) }, b);
  },
};
