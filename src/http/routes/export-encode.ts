import type { EventJson } from '../../query/types.js';

/**
 * The wire formats of GET /api/export. CSV: RFC 4180 (comma, CRLF line ends, a field quoted when
 * it holds a quote, comma, CR or LF, quotes doubled), UTF-8, a header row. NDJSON: one JSON
 * object per line. Values are written as the JSON answers of /api/search show them, but for CSV
 * formula injection: a text cell starting with = + - @, a tab or a CR gets a leading `'`, as OWASP
 * recommends, so a spreadsheet shows `=cmd|…` as text instead of running it. Numbers and booleans
 * cannot hold a formula and are written as they are (`-5` stays a number).
 */

export type ExportFormat = 'csv' | 'ndjson';

/** The columns every exported event has, before its user fields. */
export const EVENT_COLUMNS = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'] as const;

/** First characters a spreadsheet reads as the start of a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvField(v: unknown): string {
  const s = typeof v === 'string' ? (FORMULA_START.test(v) ? `'${v}` : v) : cellText(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV record: text neutralised against formulas, other values as cellText writes them. */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvField).join(',') + '\r\n';
}

/** A value as JSON shows it: text as is, null as nothing, numbers, booleans, lists and objects as JSON text. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function eventCsv(e: EventJson, fields: string[]): string {
  return csvLine([
    e.time,
    e.env,
    e.index,
    e.host,
    e.source,
    e.sourcetype,
    e.message,
    ...fields.map((f) => e.fields[f]),
  ]);
}

export function rowCsv(row: unknown[]): string {
  return csvLine(row);
}

export function eventNdjson(e: EventJson): string {
  return JSON.stringify(e) + '\n';
}

export function rowNdjson(columns: string[], row: unknown[]): string {
  return JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null]))) + '\n';
}

/** `svc-export-20260131-120000.csv`, from the UTC time. */
export function exportFileName(nowMs: number, format: ExportFormat): string {
  const t = new Date(nowMs).toISOString();
  return `svc-export-${t.slice(0, 10).replaceAll('-', '')}-${t.slice(11, 19).replaceAll(':', '')}.${format}`;
}
