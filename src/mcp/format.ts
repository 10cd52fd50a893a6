import type { EventJson, SearchMeta } from '../query/types.js';
import { eventId } from './event-id.js';

/**
 * Compact text for models, with a budget: answers stop adding items once the text reaches
 * TEXT_BUDGET characters and say so, so a large result never floods the model's context.
 */

export const TEXT_BUDGET = 24_000;
/** Message characters shown per event in lists (get_event shows all). */
export const LIST_MESSAGE_CHARS = 600;
/** Message characters kept per event in structured content of lists. */
export const STRUCTURED_MESSAGE_CHARS = 4000;
export const MAX_TABLE_ROWS = 500;

export function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… [+${s.length - n} chars]`;
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return /[\s"=,]/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (typeof v === 'object') return JSON.stringify(v);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what is left is a scalar: field values are JSON
  return String(v);
}

export function fieldsText(fields: Record<string, unknown>, maxChars = 400): string {
  const parts = Object.entries(fields ?? {})
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${scalar(v)}`);
  return cut(parts.join(' '), maxChars);
}

/** One line per event: `time env/index host=… source=… | message | fields | id=…`. */
export function eventLine(e: EventJson, id: string | undefined): string {
  const where = [
    `host=${scalar(e.host)}`,
    e.source ? `source=${scalar(e.source)}` : '',
    e.sourcetype ? `sourcetype=${scalar(e.sourcetype)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const fields = fieldsText(e.fields);
  return `${e.time} ${e.env}/${e.index} ${where} | ${cut(e.message ?? '', LIST_MESSAGE_CHARS).replace(/\n/g, '\\n')}${fields ? ` | ${fields}` : ''}${id ? ` | id=${id}` : ''}`;
}

/** `id` is absent when a pipe (fields, table) dropped env or index: such rows cannot be fetched again. */
export type EventWithId = EventJson & { id?: string };

export function withId(e: EventJson, maxMessage = STRUCTURED_MESSAGE_CHARS): EventWithId {
  const id = e.env && e.index && e.time ? eventId(e) : undefined;
  return { ...(id ? { id } : {}), ...e, message: cut(e.message ?? '', maxMessage) };
}

/** The counts, then what the answer left out or could not honour (meta.warnings), one per line: an assistant must see them. */
export function metaLine(meta: SearchMeta): string {
  const line = `matched ${meta.matched} events (scanned ${meta.scanned}, ${meta.tookMs} ms)`;
  return [line, ...(meta.warnings ?? []).map((w) => `warning: ${w}`)].join('\n');
}

/** The "nothing matched" advice, from the search hint when there is one. */
export function emptyAdvice(meta: SearchMeta): string {
  if (meta.hint) return `No events matched. ${meta.hint.message}`;
  return 'No events matched. This is not an error: widen the time range (from/to), check env and index (list_environments, list_indexes), or loosen the query.';
}

/** Adds lines until the budget is used; returns the lines kept and how many were left out. */
export function fitLines(header: string[], lines: string[], budget = TEXT_BUDGET): { text: string; shown: number } {
  let used = header.reduce((n, l) => n + l.length + 1, 0);
  let shown = 0;
  for (const l of lines) {
    if (used + l.length + 1 > budget && shown > 0) break;
    used += l.length + 1;
    shown++;
  }
  return { text: [...header, ...lines.slice(0, shown)].join('\n'), shown };
}

export function truncationNote(shown: number, total: number, what: string, advice: string): string {
  return `[truncated: showing ${shown} of ${total} ${what}; ${advice}]`;
}

/** A table as `a | b | c` lines under a header, with the same budget. */
export function tableText(columns: string[], rows: unknown[][]): { text: string; shown: number } {
  const lines = rows.slice(0, MAX_TABLE_ROWS).map((r) => r.map(scalar).join(' | '));
  return fitLines([columns.join(' | ')], lines);
}
