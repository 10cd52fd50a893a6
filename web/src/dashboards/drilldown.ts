import { writeParams } from '../search/params';
import { valueText } from '../ui/format';
import type { InlineSource } from './dashboard-api';

/*
 * A click on a panel opens the search page on the events behind what was clicked (Kibana's and
 * Splunk's drill-down): the query the panel ran (variables inserted, as the server answered it in
 * `source`), cut before its first table-making pipe, narrowed by the clicked row's or series'
 * `field="value"`, over the clicked bucket's range or else the panel's.
 */

/** Pipes that turn events into a table: a drill-down shows the events that went into them. */
const TRANSFORMING =
  /^(stats|timechart|chart|top|rare|eventstats|streamstats|table|fieldsummary|patterns|transaction)\b/i;

/** The query split at its top-level pipes (not inside quotes or a subsearch's brackets). */
export function splitPipes(q: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let depth = 0;
  let start = 0;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === '|' && depth === 0) {
      parts.push(q.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(q.slice(start).trim());
  return parts;
}

/** `field="value"` as the query language reads a value: quoted, `"` and `\` escaped; `!field` excludes. */
export function filterText(field: string, value: unknown): string {
  if (field.startsWith('!')) return `NOT ${filterText(field.slice(1), value)}`;
  const name = /^[A-Za-z_@][\w.@-]*$/.test(field) ? field : `'${field.replace(/'/g, "''")}'`;
  if (value === null || value === undefined) return `NOT ${name}=*`;
  return `${name}="${valueText(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The search for the events behind a panel's answer, narrowed by `filters` (field → value). */
export function drillQuery(query: string, filters: [string, unknown][]): string {
  const pipes = splitPipes(query);
  const cut = pipes.findIndex((p, i) => i > 0 && TRANSFORMING.test(p));
  const kept = cut < 0 ? pipes : pipes.slice(0, cut);
  const terms = filters.map(([f, v]) => filterText(f, v));
  if (terms.length === 0) return kept.join(' | ');
  // narrowed where the events are read when nothing comes between; else after the pipes kept
  if (kept.length === 1) return [kept[0] === '*' ? '' : kept[0], ...terms].filter(Boolean).join(' ');
  return `${kept.join(' | ')} | search ${terms.join(' ')}`;
}

/** The field a `timechart … by <field>` splits by, or null. */
export function splitField(query: string): string | null {
  for (const p of splitPipes(query)) {
    const m = /^(?:timechart|chart)\b.*\bby\s+("[^"]+"|[A-Za-z_@][\w.@-]*)/i.exec(p);
    if (m) return m[1].replace(/^"|"$/g, '');
  }
  return null;
}

/** The columns of a table row that name what it counts (not numbers, not `_time`), with the row's values. */
export function rowFilters(columns: string[], row: unknown[]): [string, unknown][] {
  return columns
    .map((c, i) => [c, row[i]] as [string, unknown])
    .filter(([c, v]) => c !== '_time' && typeof v !== 'number');
}

/** The search page's URL for a drill-down, under the router's base (`/ui`). */
export function drillUrl(source: InlineSource, filters: [string, unknown][], range: { from: string; to: string }) {
  const q = drillQuery(source.query, filters);
  return `/search?${writeParams({
    q,
    env: source.env,
    index: source.index ?? '',
    from: range.from,
    to: range.to,
    by: '',
    view: '',
    saved: '',
  })}`;
}
