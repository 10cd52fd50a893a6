import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { str } from '../sql.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';
import { cellSql, formattable } from './search-text-sql.js';

/**
 * `format [mvsep="OR"] [maxresults=N] [emptystr="NOT ( )"] ["(" "(" "AND" ")" "OR" ")"]` (Splunk's
 * format): the rows become one row whose `search` field is search text, `( ( a="1" AND b="2" ) OR
 * ( a="3" AND b="4" ) )`, as a subsearch hands them to its outer search. Fields starting with `_`
 * are left out, a multivalue is its values joined by mvsep, rows without any value are skipped; no
 * rows give emptystr. The six strings replace the row prefix, column prefix, column separator,
 * column end, row separator and row end.
 */
export interface FormatPipe {
  kind: 'format';
  mvsep: string;
  maxresults: number;
  emptystr: string;
  /** row prefix, column prefix, column separator, column end, row separator, row end. */
  parts: [string, string, string, string, string, string];
}

const DEFAULT_PARTS: FormatPipe['parts'] = ['(', '(', 'AND', ')', 'OR', ')'];
const DEFAULTS = { mvsep: 'OR', maxresults: 0, emptystr: 'NOT ( )' };

function parseFormat(p: Parser): FormatPipe {
  const n: FormatPipe = { kind: 'format', ...DEFAULTS, parts: [...DEFAULT_PARTS] };
  const opts = new PipeOptions(p, ['mvsep', 'maxresults', 'emptystr']);
  const strings: string[] = [];
  for (;;) {
    const name = opts.next();
    if (name === 'maxresults') n.maxresults = opts.count(name, 1_000_000);
    else if (name === 'mvsep' || name === 'emptystr') {
      const t = p.next('expr');
      if (t.kind !== 'string') throw p.fail(`unexpected ${describe(t)}: missing a quoted text after "${name}="`, t);
      n[name] = t.text;
    } else if (p.peek('expr').kind === 'string') strings.push(p.next('expr').text);
    else break;
  }
  if (strings.length !== 0 && strings.length !== 6)
    throw p.fail(
      `format takes all six strings (row prefix, column prefix, column separator, column end, row separator, row end) or none, not ${strings.length}`,
      p.peek('expr'),
    );
  if (strings.length === 6) n.parts = strings as FormatPipe['parts'];
  return n;
}

function printFormat(n: FormatPipe): string {
  const out = ['format'];
  if (n.mvsep !== DEFAULTS.mvsep) out.push(`mvsep=${quoteString(n.mvsep)}`);
  if (n.maxresults !== DEFAULTS.maxresults) out.push(`maxresults=${n.maxresults}`);
  if (n.emptystr !== DEFAULTS.emptystr) out.push(`emptystr=${quoteString(n.emptystr)}`);
  if (n.parts.some((x, i) => x !== DEFAULT_PARTS[i])) out.push(...n.parts.map((x) => quoteString(x)));
  return out.join(' ');
}

export const formatPipe: PipeDef<FormatPipe> = {
  name: 'format',
  doc: doc(
    'format [mvsep="OR"] [maxresults=<n>] [emptystr="NOT ( )"] ["(" "(" "AND" ")" "OR" ")"]',
    'Turns the rows into one row whose search field is search text, ( ( a="1" AND b="2" ) OR ( … ) ), what a subsearch hands its outer search.',
    '* | stats count by clientip | sort -count | head 5 | fields clientip | format',
  ),
  parse: parseFormat,
  print: printFormat,
  reads: () => '*',
  writes: () => 'all',
  compile(n, b) {
    const [rowPre, colPre, colSep, colEnd, rowSep, rowEnd] = n.parts;
    const cells = formattable(b.schema.keys()).map((name) => cellSql(name, b.col(name), n.mvsep));
    // parts joined by single spaces; an empty part adds no space
    const spaced = (...parts: string[]) => parts.filter((x) => x !== `''`).join(` || ' ' || `);
    const sep = colSep === '' ? ' ' : ` ${colSep} `;
    const row = cells.length
      ? spaced(str(colPre), `nullif(concat_ws(${str(sep)}, ${cells.join(', ')}), '')`, str(colEnd))
      : 'NULL';
    const ord = b.order.length ? b.orderSql() : '1';
    const numbered = `SELECT ${row} AS r, row_number() OVER (ORDER BY ${ord}) AS k FROM ${b.cur}`;
    const limit = n.maxresults > 0 ? ` AND k <= ${n.maxresults}` : '';
    b.push(
      `SELECT CASE WHEN count(r) = 0 THEN ${str(n.emptystr)} ELSE ${spaced(str(rowPre), `string_agg(r, ${str(rowSep === '' ? ' ' : ` ${rowSep} `)} ORDER BY k)`, str(rowEnd))} END AS search FROM (${numbered}) WHERE r IS NOT NULL${limit}`,
      new Map([['search', 'str']]),
    );
    b.order = [];
    b.mode = 'table';
  },
};
