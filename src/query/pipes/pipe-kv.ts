import { doc } from '../doc.js';
import { toStr } from '../expr/coerce.js';
import { pushFound } from '../extract/extract-stage.js';
import { kvValueSql } from '../extract/text-sql.js';
import type { PipeDef } from './pipe.js';
import { parseFieldOption } from './pipe-options.js';
import { printListName } from './field-names.js';

/**
 * `kv [field=f]` (also `logfmt`): each field a later pipe reads, from the `key=value` or
 * `key="quoted value"` pairs of field f (message by default). Where f has no such pair the field
 * keeps its value. The automatic extraction does the same for message; kv is for other fields
 * (one a rex or spath produced) and to let the pairs win over stored values.
 */
export interface KvPipe {
  kind: 'kv' | 'logfmt';
  field?: string;
}

export function kvPipeNamed(name: 'kv' | 'logfmt'): PipeDef<KvPipe> {
  return {
    name,
    doc: doc(
      `${name} [field=<field>]`,
      `Reads the key=value pairs of a field (message by default) into the fields later pipes read${name === 'logfmt' ? ', like kv' : ''}.`,
      `* | ${name} field=detail | stats avg(duration) by user`,
    ),
    parse(p) {
      const field = parseFieldOption(p);
      return field === undefined ? { kind: name } : { kind: name, field };
    },
    print: (n) => `${n.kind}${n.field !== undefined ? ` field=${printListName(n.field)}` : ''}`,
    reads: (n) => [n.field ?? 'message'],
    writes: () => [],
    compile(n, b) {
      const text = toStr(b.col(n.field ?? 'message'));
      pushFound(
        b,
        b.readLater.map((name) => ({ name, sql: kvValueSql(text, name) })),
      );
    },
  };
}

export const kvPipe = kvPipeNamed('kv');
export const logfmtPipe = kvPipeNamed('logfmt');
