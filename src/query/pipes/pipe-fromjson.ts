import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import { toStr } from '../expr/coerce.js';
import { pushFound } from '../extract/extract-stage.js';
import { ident, str } from '../sql.js';
import { printListName } from './field-names.js';
import { oneField } from './pipe-nomv.js';
import type { PipeDef } from './pipe.js';
import type { StageBuilder } from '../stages.js';

/**
 * The core fields a found key sets as Splunk sets any field of that name (svc reads them from
 * every event, so they are never among the fields later pipes read). Not `message`, which is
 * Splunk's `_raw`, nor svc's own `env`.
 */
export const CORE_KEYS = ['host', 'source', 'sourcetype', 'index'];

/** Sets core text fields where a value is found (`value(name)`, NULL when none), keeping them text. */
export function setCoreFields(b: StageBuilder, names: string[], value: (name: string) => string): void {
  b.setColumns(
    names
      .filter((name) => b.schema.get(name) === 'str')
      .map((name) => ({ name, sql: `coalesce(${value(name)}, ${ident(name)})`, type: 'str' as const })),
  );
}

/**
 * `fromjson <field> [prefix=<text>]` (Splunk's fromjson): the top-level keys of the JSON object in
 * the field become fields (named `prefix` + key), their values as text: a nested object or an array
 * as its JSON text, as a JSON array stored by ingest is (Splunk makes an array a multivalue: read
 * its values with mvexpand after spath, or `field{}`on stored JSON). As svc's other extractors
 * (spath, kv), it sets the fields later pipes read; a key the object lacks, or a value that is not
 * a JSON object, leaves the field as it was.
 */
export interface FromjsonPipe {
  kind: 'fromjson';
  field: string;
  prefix: string;
}

export const fromjsonPipe: PipeDef<FromjsonPipe> = {
  name: 'fromjson',
  doc: doc(
    'fromjson <field> [prefix=<text>]',
    'Makes the top-level keys of the JSON object in a field into fields (the ones later pipes read), their names prefixed when asked.',
    '* | fromjson payload prefix=p_ | stats count by p_user',
  ),
  parse(p) {
    const readPrefix = (): string | undefined => {
      if (!p.acceptKeyword('prefix')) return undefined;
      p.expectOp('=', 'expr');
      const t = p.next('search');
      if (t.kind !== 'word' && t.kind !== 'string')
        throw p.fail(`unexpected ${describe(t)}: missing a text after "prefix="`, t);
      return t.text;
    };
    const before = readPrefix();
    const field = oneField(p, 'fromjson', 'a field holding JSON', ['prefix']);
    const at = p.peek('expr');
    const after = readPrefix();
    if (before !== undefined && after !== undefined) throw p.fail('"prefix" is given twice', at);
    return { kind: 'fromjson', field, prefix: before ?? after ?? '' };
  },
  print: (n) =>
    `fromjson ${printListName(n.field)}${n.prefix ? ` prefix=${/^[\w.-]+$/.test(n.prefix) ? n.prefix : quoteString(n.prefix)}` : ''}`,
  reads: (n) => [n.field],
  writes: () => [],
  compile(n, b) {
    const col = b.col(n.field);
    if (col.sql === 'NULL') return;
    const text = toStr(col);
    const keyPath = (key: string) => `$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    const valueOf = (name: string) => {
      const key = name.slice(n.prefix.length);
      // fast path: the key and its closing quote must be in the text
      return `CASE WHEN contains(${text}, ${str(`${key}"`)}) THEN try(json_extract_string(${text}, ${str(keyPath(key))})) END`;
    };
    const named = (name: string) => name.startsWith(n.prefix) && name.length > n.prefix.length;
    pushFound(
      b,
      b.readLater.filter(named).map((name) => ({ name, sql: valueOf(name) })),
    );
    setCoreFields(b, CORE_KEYS.filter(named), valueOf);
  },
};
