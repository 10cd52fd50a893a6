import { doc } from '../doc.js';
import { describe, quoteString, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { toStr } from '../expr/coerce.js';
import { str } from '../sql.js';
import { printListName } from './field-names.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';

/**
 * `makemv [delim="<text>" | tokenizer="<regex>"] [allowempty=<bool>] <field>` (Splunk's makemv;
 * the tokenizer may also be written without quotes up to the next space, `tokenizer=(\S+)`):
 * makes a text field multivalue, split at every `delim` (default one space) or made of the first
 * group of each match of `tokenizer` (RE2). Empty values are dropped unless `allowempty=true`. A
 * field that is already multivalue, or absent, is left alone. `setsv` is not supported.
 */
export interface MakemvPipe {
  kind: 'makemv';
  field: string;
  delim?: string;
  tokenizer?: string;
  allowempty: boolean;
}

const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;

/**
 * A tokenizer regex written without quotes (`tokenizer=(\S+)`, as Splunk takes it): the text up to
 * the first space or `|`, from the tokens glued together.
 */
function unquotedRegex(p: Parser, start: number): string {
  let text = '';
  let end = start;
  for (;;) {
    const t = p.peek('search');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|') || t.pos !== end) return text;
    p.next('search');
    text += t.raw;
    end = t.pos + t.raw.length;
  }
}

/** `valueAt`: where the value starts when written right after `name=`. */
function quoted(p: Parser, name: string, valueAt: number): string {
  if (name === 'tokenizer' && p.peek('expr').kind !== 'string') {
    const at = p.peek('search');
    const re = unquotedRegex(p, valueAt);
    if (re === '') throw p.fail(`unexpected ${describe(at)}: missing a regex after "tokenizer="`, at);
    return re;
  }
  const t = p.next('expr');
  if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted value after "${name}="`, t);
  if (t.text === '') throw p.fail(`${name}= takes a value that is not empty`, t);
  return t.text;
}

/** Capturing groups of a regex (an empty alternative makes it match ''); a regex that does not parse is refused. */
function groupCount(p: Parser, re: string, at: Token): number {
  try {
    return new RegExp(`${re.replace(/\(\?[imsU]+\)/g, '')}|`).exec('')!.length - 1;
  } catch (e) {
    throw p.fail(`cannot parse tokenizer ${quoteString(re)}: ${(e as Error).message}`, at);
  }
}

function parseMakemv(p: Parser): MakemvPipe {
  const opts = new PipeOptions(p, ['delim', 'tokenizer', 'allowempty']);
  const n: MakemvPipe = { kind: 'makemv', field: '', allowempty: false };
  const readOptions = () => {
    for (
      let nameAt = p.peek('expr'), name = opts.next();
      name !== undefined;
      nameAt = p.peek('expr'), name = opts.next()
    ) {
      const at = p.peek('expr');
      const valueAt = nameAt.pos + nameAt.raw.length + 1;
      if (name === 'allowempty') n.allowempty = opts.bool(name);
      else if (name === 'delim') n.delim = quoted(p, name, valueAt);
      else {
        n.tokenizer = quoted(p, name, valueAt);
        if (UNSUPPORTED.test(n.tokenizer))
          throw p.fail(
            `cannot use lookaround or backreferences (RE2 syntax) in tokenizer ${quoteString(n.tokenizer)}`,
            at,
          );
        if (groupCount(p, n.tokenizer, at) < 1)
          throw p.fail(`tokenizer ${quoteString(n.tokenizer)} needs a capturing group (…)`, at);
      }
      if (n.delim !== undefined && n.tokenizer !== undefined)
        throw p.fail('makemv takes delim= or tokenizer=, not both', at);
    }
  };
  readOptions();
  const names = p
    .listItems('a field to split', { stop: ['delim', 'tokenizer', 'allowempty', 'setsv'] })
    .map((i) => i.name);
  if (names.length !== 1 || names[0].includes('*'))
    throw p.fail(`makemv takes one field without wildcards, not ${JSON.stringify(names.join(' '))}`, p.peek('search'));
  n.field = names[0];
  readOptions();
  const t = p.peek('expr');
  if (t.kind === 'ident' && t.raw.toLowerCase() === 'setsv') throw p.fail('makemv setsv= is not supported', t);
  return n;
}

function printMakemv(n: MakemvPipe): string {
  const opts = [
    n.delim !== undefined ? `delim=${quoteString(n.delim)}` : '',
    n.tokenizer !== undefined ? `tokenizer=${quoteString(n.tokenizer)}` : '',
    n.allowempty ? 'allowempty=true' : '',
  ].filter(Boolean);
  return `makemv ${[...opts, printListName(n.field)].join(' ')}`;
}

export const makemvPipe: PipeDef<MakemvPipe> = {
  name: 'makemv',
  doc: doc(
    'makemv [delim="<text>" | tokenizer="<regex>"] [allowempty=<bool>] <field>',
    'Splits a text field into a multivalue field at a delimiter (default a space) or by the first group of a regex.',
    '* | makemv delim="," recipients | mvexpand recipients',
  ),
  parse: parseMakemv,
  print: printMakemv,
  reads: (n) => [n.field],
  writes: (n) => [n.field],
  compile(n, b) {
    const col = b.col(n.field);
    if (col.sql === 'NULL' || col.type === 'list') return;
    const text = toStr(col);
    const parts =
      n.tokenizer !== undefined
        ? `regexp_extract_all(${text}, ${str(n.tokenizer.replace(/\(\?<(?![=!])/g, '(?P<'))}, 1)`
        : `string_split(${text}, ${str(n.delim ?? ' ')})`;
    const sql = n.allowempty ? parts : `list_filter(${parts}, lambda v: v <> '')`;
    b.setColumns([{ name: n.field, sql: `(CASE WHEN ${col.sql} IS NULL THEN NULL ELSE ${sql} END)`, type: 'list' }]);
  },
};
