import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { pipeError } from '../stages.js';
import { printListName } from './field-names.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';

/**
 * `transpose [N] [column_name=<text>] [header_field=<field>] [include_empty=<bool>]` (Splunk's
 * transpose): the first N rows of the table (default 5, 0 every row) become columns, one row per
 * field: a first column `column_name` (default `column`) naming the field, then one column per row,
 * named `row 1`, `row 2`, … or by the row's value of `header_field` (a row without one keeps
 * `row i`; that field is not a row itself). Only as many row columns as there are rows. Fields
 * starting with `_` (Splunk's internal ones, `_time`) are left out; `include_empty=false` leaves
 * out a field without a value in any of those rows. The columns depend on the data, so it runs on
 * the final rows, after the statement: it must be the last pipe.
 */
export interface TransposePipe {
  kind: 'transpose';
  /** 0: every row. */
  rows: number;
  columnName: string;
  headerField?: string;
  includeEmpty: boolean;
}

const OPTIONS = ['column_name', 'header_field', 'include_empty'];
/** Rows one transpose turns into columns at most: the rows a table answer holds. */
const MAX_ROWS = 10_000;

function text(p: Parser, name: string): string {
  const t = p.next('search');
  if ((t.kind !== 'word' && t.kind !== 'string') || t.text === '')
    throw p.fail(`unexpected ${describe(t)}: missing a value after "${name}="`, t);
  return t.text;
}

function parseTranspose(p: Parser): TransposePipe {
  const n: TransposePipe = { kind: 'transpose', rows: 5, columnName: 'column', includeEmpty: true };
  const opts = new PipeOptions(p, OPTIONS);
  let counted = false;
  for (;;) {
    if (!counted && p.intAhead()) {
      const at = p.peek('expr');
      n.rows = Number(p.next('expr').text);
      if (n.rows > MAX_ROWS) throw p.fail(`${describe(at)} is too large for transpose (at most ${MAX_ROWS} rows)`, at);
      counted = true;
      continue;
    }
    const name = opts.next();
    if (name === undefined) break;
    if (name === 'column_name') n.columnName = text(p, name);
    else if (name === 'header_field') n.headerField = text(p, name);
    else n.includeEmpty = opts.bool(name);
  }
  const end = p.peek('search');
  if (end.kind === 'op' && end.text === '|')
    throw p.fail(`unexpected ${describe(end)}: transpose must be the last pipe`, end);
  return n;
}

function printTranspose(n: TransposePipe): string {
  const parts = ['transpose'];
  if (n.rows !== 5) parts.push(String(n.rows));
  if (n.columnName !== 'column') parts.push(`column_name=${quoteString(n.columnName)}`);
  if (n.headerField !== undefined) parts.push(`header_field=${printListName(n.headerField)}`);
  if (!n.includeEmpty) parts.push('include_empty=false');
  return parts.join(' ');
}

export const transposePipe: PipeDef<TransposePipe> = {
  name: 'transpose',
  doc: doc(
    'transpose [<N>] [column_name=<text>] [header_field=<field>] [include_empty=<bool>]',
    'Turns the first N rows of the table (default 5) into columns, one row per field; the last pipe.',
    '* | stats count, dc(clientip) as clients by status | transpose header_field=status',
  ),
  parse: parseTranspose,
  print: printTranspose,
  reads: () => '*',
  writes: () => 'all',
  compile(_n, b) {
    if (b.mode === 'events')
      throw pipeError('transpose', 'it turns the rows of a table into columns: put it after stats, chart or table');
  },
};

/** The query's transpose (its last pipe: parseTranspose); one inside a subsearch is refused, its rows being data. */
export function finalTranspose(pipes: readonly { kind: string }[]): TransposePipe | undefined {
  type Pipes = readonly { kind: string; sub?: { pipes: Pipes } }[];
  const subOf = (x: { kind: string }) => ('sub' in x ? (x as { sub: { pipes: Pipes } }).sub.pipes : []);
  const has = (ps: Pipes): boolean => ps.some((x) => x.kind === 'transpose' || has(subOf(x)));
  if (pipes.some((x) => has(subOf(x))))
    throw pipeError('transpose', 'not inside a subsearch: its columns come from the data, after the search');
  const last = pipes[pipes.length - 1];
  return last?.kind === 'transpose' ? (last as TransposePipe) : undefined;
}

/** A header cell as a column name: a multivalue's values joined by spaces. */
function cellText(v: unknown): string {
  if (Array.isArray(v)) return v.map(cellText).join(' ');
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** The final table transposed (after the statement and a timechart's shaping). */
export function transposeTable(
  n: TransposePipe,
  columns: string[],
  rows: unknown[][],
): { columns: string[]; rows: unknown[][] } {
  const taken = n.rows === 0 ? rows : rows.slice(0, n.rows);
  const header = n.headerField === undefined ? -1 : columns.indexOf(n.headerField);
  const names = taken.map((row, i) =>
    header >= 0 && row[header] !== null && row[header] !== undefined ? cellText(row[header]) : `row ${i + 1}`,
  );
  const out: unknown[][] = [];
  columns.forEach((name, c) => {
    if (name.startsWith('_') || c === header) return;
    const cells = taken.map((row) => row[c] ?? null);
    if (!n.includeEmpty && cells.every((v) => v === null)) return;
    out.push([name, ...cells]);
  });
  return { columns: [n.columnName, ...names], rows: out };
}
