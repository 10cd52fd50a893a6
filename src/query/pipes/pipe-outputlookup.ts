import { doc } from '../doc.js';
import { describe, printIdent } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { PipeDef } from './pipe.js';

/**
 * `outputlookup [append=<bool>] [create_empty=<bool>] [override_if_empty=<bool>] [createinapp=<bool>]
 * <table>` (Splunk's outputlookup): writes the search's table as the lookup table (a new version
 * of it, as an upload; with `append=true` after its current rows) and answers the rows unchanged.
 * One per search, anywhere (run-outputlookup.ts runs the write; in the middle it passes the rows on); needs the right of the lookup
 * admin API. A search with no rows writes nothing (svc keeps no empty tables); `create_empty` and
 * `override_if_empty` are read for that reason and change nothing else; `createinapp` is accepted
 * (svc has no apps). `key_field=<field>` updates the table by that column instead of replacing it
 * (Splunk's KV store update by `_key`): a row of the table whose key a search row has is replaced
 * by it, the search's other rows are added, the table's other rows are kept (write-rows.ts).
 */
export interface OutputlookupPipe {
  kind: 'outputlookup';
  table: string;
  append: boolean;
  createEmpty?: boolean;
  overrideIfEmpty?: boolean;
  createinapp?: boolean;
  keyField?: string;
}

const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const BOOLS = ['append', 'create_empty', 'override_if_empty', 'createinapp'];

function parseOutputlookup(p: Parser): OutputlookupPipe {
  const n: OutputlookupPipe = { kind: 'outputlookup', table: '', append: false };
  const given = new Set<string>();
  const options = () => {
    for (;;) {
      const t = p.peek('search');
      const name = t.kind === 'word' ? t.text.toLowerCase() : '';
      if (name === 'max' || name === 'output_format') throw p.fail(`outputlookup ${name}= is not supported`, t);
      if (name === 'key_field') {
        if (n.keyField !== undefined) throw p.fail(`${describe(t)} is given twice`, t);
        p.next('search');
        p.expectOp('=', 'expr');
        n.keyField = p.fieldName('a field after "key_field="');
        continue;
      }
      if (!BOOLS.includes(name)) return;
      p.next('search');
      if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${t.text}"`);
      if (given.has(name)) throw p.fail(`${describe(t)} is given twice`, t);
      given.add(name);
      const v = p.next('search');
      const value = v.kind === 'word' ? v.text.toLowerCase() : '';
      if (!['true', 't', 'false', 'f'].includes(value))
        throw p.fail(`unexpected ${describe(v)}: missing true or false after "${name}="`, v);
      const b = value.startsWith('t');
      if (name === 'append') n.append = b;
      else if (name === 'create_empty') n.createEmpty = b;
      else if (name === 'override_if_empty') n.overrideIfEmpty = b;
      else n.createinapp = b;
    }
  };
  options();
  const t = p.peek('search');
  if (t.kind !== 'word' || !TABLE_NAME.test(t.text)) throw p.unexpected(t, 'missing the name of a lookup table');
  p.next('search');
  n.table = t.text;
  options();
  return n;
}

function printOutputlookup(n: OutputlookupPipe): string {
  const opts = [
    n.append ? 'append=true' : '',
    n.createEmpty !== undefined ? `create_empty=${n.createEmpty}` : '',
    n.overrideIfEmpty !== undefined ? `override_if_empty=${n.overrideIfEmpty}` : '',
    n.createinapp !== undefined ? `createinapp=${n.createinapp}` : '',
    n.keyField !== undefined ? `key_field=${printIdent(n.keyField)}` : '',
  ].filter(Boolean);
  return `outputlookup ${[...opts, n.table].join(' ')}`;
}

export const outputlookupPipe: PipeDef<OutputlookupPipe> = {
  name: 'outputlookup',
  doc: doc(
    'outputlookup [append=<bool>] [key_field=<field>] <table>',
    'Writes the rows of the search as a lookup table (or adds them with append=true, or updates its rows by the key column with key_field=); needs the lookup admin right.',
    '* | stats count by host | outputlookup hosts_seen',
  ),
  parse: parseOutputlookup,
  print: printOutputlookup,
  reads: () => [],
  writes: () => [],
  // the rows pass through; the search's runner writes them once they are known
  compile: () => undefined,
};
