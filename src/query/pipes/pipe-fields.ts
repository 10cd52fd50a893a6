import { doc } from '../doc.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { expandNames, project } from './projection.js';
import { RAW } from '../schema.js';

/** `fields [+] a, b` keeps only those fields (events keep their time); `fields - a, b` drops them. */
export interface FieldsPipe {
  kind: 'fields';
  mode: '+' | '-' | '';
  names: string[];
}

export const fieldsPipe: PipeDef<FieldsPipe> = {
  name: 'fields',
  doc: doc(
    'fields [+|-] <field>[, <field>…]',
    'Keeps only the named fields, or drops them with -; names may use * wildcards.',
    '* | fields host, status',
  ),
  parse(p) {
    let mode: FieldsPipe['mode'] = '';
    const t = p.peek('search');
    if (t.kind === 'word' && (t.text === '+' || t.text === '-')) {
      p.next('search');
      mode = t.text;
    }
    const items = p.listItems('a field name', { signs: mode === '' });
    // `fields -a, b` reads like `fields - a, b`
    if (mode === '') mode = items[0].sign;
    const bad = items.slice(1).find((i) => i.sign !== '');
    if (bad)
      throw p.fail(
        `unexpected ${JSON.stringify(`${bad.sign}${bad.name}`)}: a sign goes only before the first field`,
        p.peek('search'),
      );
    return { kind: 'fields', mode, names: items.map((i) => i.name) };
  },
  print: (n) => `fields ${n.mode ? `${n.mode} ` : ''}${printListNames(n.names)}`,
  reads: (n) => (n.mode === '-' ? [] : n.names.some((x) => x.includes('*')) ? '*' : n.names),
  writes: () => [],
  compile(n, b) {
    const named = expandNames(b, n.names);
    if (n.mode === '-') {
      // `fields - _raw` drops the message, which `_raw` names until a pipe makes a column of that name
      if (named.includes(RAW) && !b.schema.has(RAW)) named.push('message');
      project(
        b,
        [...b.schema.keys()].filter((c) => !named.includes(c)),
        'fields',
      );
      return;
    }
    const keep = b.mode === 'events' && !named.includes('_time') ? ['_time', ...named] : named;
    project(b, keep, 'fields');
  },
};
