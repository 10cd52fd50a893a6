import { doc } from '../doc.js';
import { describe, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { toStr } from '../expr/coerce.js';
import { pushFound } from '../extract/extract-stage.js';
import { embeddedJsonSql, jsonPathValueSql, jsonValueSql } from '../extract/text-sql.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `spath [input=f] [output=o] [path=]p`: a value of the JSON object in field f (message by default;
 * text before the object is skipped) at path p (`a.b`, `list{2}.name`, `list{}` for every element),
 * into field o (p by default). Without a path: each field a later pipe reads, from the object's key
 * of that name. Where the JSON has no such value, or is not JSON, the field keeps its value.
 */
export interface SpathPipe {
  kind: 'spath';
  input?: string;
  output?: string;
  path?: string;
}

const OPTIONS = ['input', 'output', 'path'] as const;
const BARE_PATH = /^[A-Za-z_@][A-Za-z0-9_.@{}-]*$/;

function word(p: Parser, t: Token, what: string): string {
  if (t.kind !== 'word' && t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing ${what}`, t);
  return t.text;
}

export const spathPipe: PipeDef<SpathPipe> = {
  name: 'spath',
  doc: doc(
    'spath [input=<field>] [output=<field>] [path=]<path>',
    'Reads a value of the JSON object in a field (message by default) at a path such as a.b or list{1}.name into a field, or without a path every field later pipes read.',
    '* | spath input=payload output=user user.name | stats count by user',
  ),
  parse(p) {
    const n: SpathPipe = { kind: 'spath' };
    while (!p.atPipeEnd()) {
      const t = p.next('search');
      const option = OPTIONS.find((o) => t.kind === 'word' && t.text.toLowerCase() === o);
      const eq = p.peek('search');
      if (option && eq.kind === 'op' && eq.text === '=') {
        p.next('search');
        if (n[option] !== undefined) throw p.fail(`"${option}" is given twice in spath`, t);
        n[option] = word(p, p.next('search'), `a value after "${option}="`);
      } else if (n.path === undefined) {
        n.path = word(p, t, 'a JSON path');
      } else throw p.fail(`unexpected ${describe(t)}: spath takes one path`, t);
      if (n.path !== undefined && !/^[^{}]*(?:\{\d*\}[^{}]*)*$/.test(n.path))
        throw p.fail(`cannot read the path ${quoteString(n.path)}: braces hold a position ({1}) or nothing ({})`, t);
    }
    if (n.output !== undefined && n.path === undefined) throw p.fail('spath output= needs a path', p.peek('search'));
    return n;
  },
  print(n) {
    const parts = ['spath'];
    if (n.input !== undefined) parts.push(`input=${printListName(n.input)}`);
    if (n.output !== undefined) parts.push(`output=${printListName(n.output)}`);
    if (n.path !== undefined)
      parts.push(
        BARE_PATH.test(n.path) && !OPTIONS.includes(n.path.toLowerCase() as never) ? n.path : quoteString(n.path),
      );
    return parts.join(' ');
  },
  reads: (n) => [n.input ?? 'message'],
  writes: (n) => (n.path === undefined ? [] : [n.output ?? n.path]),
  compile(n, b) {
    if (n.path !== undefined) {
      const json = embeddedJsonSql(toStr(b.col(n.input ?? 'message')));
      pushFound(b, [{ name: n.output ?? n.path, sql: jsonPathValueSql(json, n.path), list: n.path.includes('{}') }]);
      return;
    }
    const text = toStr(b.col(n.input ?? 'message'));
    pushFound(
      b,
      b.readLater.map((name) => ({ name, sql: jsonValueSql(text, name) })),
    );
  },
};
