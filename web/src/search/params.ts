/**
 * What a search is, as the URL holds it: a copied link opens the same search.
 * `/ui/search?q=error&env=prod&index=web&from=-24h&to=` — from/to take what the API takes
 * (relative like `-24h`, or RFC 3339); an empty `from` is all time.
 */
export interface SearchParams {
  q: string;
  env: string;
  index: string;
  from: string;
  to: string;
  /** Field the histogram stacks by ('' = none). */
  by: string;
  /** How a table answer shows: '' = as its query suits (a chart for timechart and chart), or 'table', 'chart'. */
  view: '' | 'table' | 'chart';
  /** The saved search this page was opened from ('' = none): its Save changes it (web/src/saved/). */
  saved: string;
}

export const DEFAULT_RANGE = '-24h';

export function readParams(search: string): SearchParams {
  const p = new URLSearchParams(search);
  return {
    q: p.get('q') ?? '',
    env: p.get('env') ?? 'default',
    index: p.get('index') ?? '',
    from: p.has('from') ? p.get('from')! : DEFAULT_RANGE,
    to: p.get('to') ?? '',
    by: p.get('by') ?? '',
    view: p.get('view') === 'chart' ? 'chart' : p.get('view') === 'table' ? 'table' : '',
    saved: p.get('saved') ?? '',
  };
}

export function writeParams(s: SearchParams): string {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q);
  p.set('env', s.env);
  if (s.index) p.set('index', s.index);
  p.set('from', s.from);
  if (s.to) p.set('to', s.to);
  if (s.by) p.set('by', s.by);
  if (s.view) p.set('view', s.view);
  if (s.saved) p.set('saved', s.saved);
  return p.toString();
}

/** The query the API runs: an empty editor means every event. */
export function effectiveQuery(q: string): string {
  return q.trim() === '' ? '*' : q;
}

/** The API's search parameters for these settings. */
export function apiParams(s: SearchParams) {
  return {
    q: effectiveQuery(s.q),
    env: s.env,
    index: s.index || undefined,
    from: s.from || undefined,
    to: s.to || undefined,
  };
}

/** A query whose table reads best as a chart: it opens as one (timechart, chart). */
export function isChartQuery(q: string): boolean {
  return /\|\s*(timechart|chart)\b/i.test(q);
}

/** The view a table answer opens in: the URL's, else a chart for timechart and chart, else the table. */
export function viewOf(p: SearchParams): 'table' | 'chart' {
  return p.view || (isChartQuery(p.q) ? 'chart' : 'table');
}

/** A guess, from its pipes, that a query answers a table (stats, timechart, top, …) rather than events; the answer itself decides once it has come. */
export function isTableQuery(q: string): boolean {
  return /\|\s*(stats|timechart|chart|top|rare|table|transaction|fieldsummary|patterns)\b/i.test(q);
}

/** True for a pipeline whose table is a timechart (drawn as lines). */
export function isTimechart(q: string): boolean {
  return /\|\s*timechart\b/i.test(q);
}
