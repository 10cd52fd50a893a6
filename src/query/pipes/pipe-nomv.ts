import { doc } from '../doc.js';
import type { Parser } from '../parser-api.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `nomv <field>` (Splunk's nomv): a multivalue field becomes one text, its values joined by a
 * newline in their order. A single value, or an absent field, is left alone.
 */
export interface NomvPipe {
  kind: 'nomv';
  field: string;
}

/** The one field of a command that takes exactly one, without wildcards (nomv, xmlkv, fromjson). */
export function oneField(p: Parser, cmd: string, what: string, stop: string[] = []): string {
  const names = p.listItems(what, { stop }).map((i) => i.name);
  if (names.length !== 1 || names[0].includes('*'))
    throw p.fail(`${cmd} takes one field without wildcards, not ${JSON.stringify(names.join(' '))}`, p.peek('search'));
  return names[0];
}

export const nomvPipe: PipeDef<NomvPipe> = {
  name: 'nomv',
  doc: doc(
    'nomv <field>',
    'Makes a multivalue field one text, its values joined by newlines.',
    '* | stats values(status) as statuses by host | nomv statuses',
  ),
  parse: (p) => ({ kind: 'nomv', field: oneField(p, 'nomv', 'a field to join') }),
  print: (n) => `nomv ${printListName(n.field)}`,
  reads: (n) => [n.field],
  writes: (n) => [n.field],
  compile(n, b) {
    const col = b.col(n.field);
    if (col.type !== 'list') return;
    const list = `CAST(${col.sql} AS VARCHAR[])`;
    b.setColumns([
      {
        name: n.field,
        sql: `(CASE WHEN len(${list}) > 0 THEN array_to_string(${list}, chr(10)) END)`,
        type: 'str',
      },
    ]);
  },
};
