import type { EventJson } from '../query/types.js';
import { padEnd, padStart, paint, printable, truncate, width, type Terminal } from './terminal.js';

/**
 * Output formatters of the command line: aligned tables for a terminal (events, a search's table,
 * admin lists) and the query with a caret under an error's position. Pure: text in, text out.
 */

/** `1 event`, `2 events`. */
export function plural(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** A value as JSON shows it: text as is, null as nothing, the rest as JSON text (as the CSV export). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export interface TableSpec {
  headers: string[];
  rows: string[][];
  /** Columns aligned right (numbers). */
  right?: boolean[];
  /** Styles per column, applied after padding. */
  styles?: (Parameters<typeof paint>[1] | undefined)[];
  /** The column that takes what is left of the width and is cut to it (events: the message); else the widest shrink. */
  flex?: number;
}

const GAP = '  ';
const MIN_COL = 8;

/** Column widths fitted to `max`: the flex column gets the rest, else the widest columns give way. */
function fitWidths(natural: number[], max: number, flex: number | undefined): number[] {
  const w = [...natural];
  const total = () => w.reduce((a, b) => a + b, 0) + GAP.length * (w.length - 1);
  if (max === Infinity || total() <= max) return w;
  if (flex !== undefined) {
    w[flex] = Math.max(MIN_COL, w[flex] - (total() - max));
    return w;
  }
  for (let over = total() - max; over > 0; over--) {
    const widest = w.indexOf(Math.max(...w));
    if (w[widest] <= MIN_COL) break;
    w[widest]--;
  }
  return w;
}

/** An aligned table with a header line; cells are made printable and cut to their column. */
export function renderTable(spec: TableSpec, term: Terminal): string {
  const rows = spec.rows.map((r) => r.map(printable));
  const natural = spec.headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const widths = fitWidths(natural, term.width, spec.flex);
  const last = spec.headers.length - 1;
  const line = (cells: string[], header: boolean) =>
    cells
      .map((c, i) => {
        const cut = truncate(c, widths[i]);
        const right = spec.right?.[i];
        // the last column, when aligned left, is not padded: no trailing spaces
        const padded = right ? padStart(cut, widths[i]) : i === last ? cut : padEnd(cut, widths[i]);
        const style = header ? 'bold' : spec.styles?.[i];
        return style ? paint(term.color, style, padded) : padded;
      })
      .join(GAP);
  return [line(spec.headers, true), ...rows.map((r) => line(r, false))].join('\n') + '\n';
}

/** Events as a table: time, env/index when they differ between events, host when any has one, the message cut to the width. */
export function eventsTable(events: EventJson[], term: Terminal): string {
  const cols: { header: string; get: (e: EventJson) => string; style?: 'dim' | 'cyan' }[] = [
    { header: 'time', get: (e) => e.time, style: 'dim' },
  ];
  if (new Set(events.map((e) => `${e.env}/${e.index}`)).size > 1)
    cols.push({ header: 'env/index', get: (e) => `${e.env}/${e.index}` });
  if (events.some((e) => e.host !== '')) cols.push({ header: 'host', get: (e) => e.host, style: 'cyan' });
  cols.push({ header: 'message', get: (e) => e.message });
  return renderTable(
    {
      headers: cols.map((c) => c.header),
      rows: events.map((e) => cols.map((c) => c.get(e))),
      styles: cols.map((c) => c.style),
      flex: cols.length - 1,
    },
    term,
  );
}

/** A search's table (stats, timechart…): numbers aligned right. */
export function rowsTable(columns: string[], rows: unknown[][], term: Terminal): string {
  const right = columns.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === 'number'));
  return renderTable({ headers: columns, rows: rows.map((r) => columns.map((_, i) => cellText(r[i]))), right }, term);
}

/** One event on one line (svc tail): time, env/index, host, message. */
export function eventLine(e: EventJson, term: Terminal): string {
  const host = e.host ? ` ${paint(term.color, 'cyan', printable(e.host))}` : '';
  const head = `${paint(term.color, 'dim', e.time)} ${e.env}/${e.index}${host} `;
  const room =
    term.width === Infinity
      ? Infinity
      : Math.max(MIN_COL, term.width - width(`${e.time} ${e.env}/${e.index}${e.host ? ` ${e.host}` : ''} `));
  return head + truncate(printable(e.message), room) + '\n';
}

/**
 * The query's line holding `position` (a UTF-16 offset, as the parser counts) and a caret under
 * it, indented by `indent`; tabs in the line are kept in the padding so the caret stays aligned.
 */
export function caretLines(query: string, position: number, indent = '  '): string[] {
  const pos = Math.max(0, Math.min(position, query.length));
  const start = query.lastIndexOf('\n', pos - 1) + 1;
  const endNl = query.indexOf('\n', pos);
  const line = query.slice(start, endNl < 0 ? query.length : endNl);
  const before = query.slice(start, pos);
  const pad = [...before].map((c) => (c === '\t' ? '\t' : ' ')).join('');
  return [indent + line.replace(/[\x00-\x08\x0a-\x1f]/g, ' '), indent + pad + '^'];
}
