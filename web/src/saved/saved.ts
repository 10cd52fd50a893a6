import type { SavedSearch, SavedSearchInput, SavedView } from '../api/types';
import type { MonitorPrefill } from '../monitors/draft';
import { rangeLabel } from '../search/TimePicker';
import { isTableQuery, isTimechart, viewOf, writeParams, type SearchParams } from '../search/params';

/**
 * The search page's "all time" (an empty `from`) as a saved range, whose ends are never empty: the
 * first instant svc can store (year 1), read back as all time when the search opens again.
 */
export const ALL_TIME_FROM = '0001-01-01T00:00:00Z';

/** What the search page shows, as a saved search's fields: the editor's query, where, when and how. */
export function fieldsOf(
  params: SearchParams,
  draft: string,
  table: boolean,
  loaded: SavedSearch | null,
): Required<Pick<SavedSearchInput, 'query' | 'env' | 'range' | 'view'>> & { index: string | undefined } {
  // the answer on screen says table or events for the query it ran; an edited query is judged by its pipes
  const isTable = draft === params.q ? table : isTableQuery(draft);
  return {
    query: draft.trim() === '' ? '*' : draft,
    env: params.env,
    index: params.index || undefined,
    // relative stays relative: a "last 24 hours" search opens on the last 24 hours of the day it is opened
    range: { from: params.from || ALL_TIME_FROM, to: params.to || 'now' },
    view: isTable ? tableView({ ...params, q: draft }, loaded?.view) : { type: 'events' },
  };
}

/**
 * A table answer's view. The page draws a timechart as lines and other tables as columns; a saved
 * chart of another kind (an area chart saved through the API) keeps its kind while it stays a chart.
 */
function tableView(params: SearchParams, before: SavedView | undefined): SavedView {
  if (viewOf(params) === 'table') return { type: 'table' };
  if (before?.type === 'chart') return before;
  return { type: 'chart', chart: isTimechart(params.q) ? 'line' : 'column' };
}

/** The search page's URL for a saved search: its query, env, index, range and view, and `saved=<id>`. */
export function searchHref(s: SavedSearch): string {
  const params: SearchParams = {
    q: s.query === '*' ? '' : s.query,
    env: s.env,
    index: s.index ?? '',
    ...searchRange(s.range),
    by: '',
    view: s.view.type === 'events' ? '' : s.view.type,
    saved: s.id,
  };
  return `/search?${writeParams(params)}`;
}

/** A saved range as the search page's `from`/`to`: all time and "now" are its empty ends. */
function searchRange(range: { from: string; to: string }): { from: string; to: string } {
  return { from: range.from === ALL_TIME_FROM ? '' : range.from, to: range.to === 'now' ? '' : range.to };
}

/** A saved search as a new monitor's prefill ("Create monitor"): what the search page hands over for the same search. */
export function monitorPrefillOf(s: SavedSearch): MonitorPrefill {
  return { query: s.query, env: s.env, index: s.index ?? '', ...searchRange(s.range) };
}

/** A first name for a new saved search: the query as typed, shortened at a word. */
export function suggestedName(query: string, env: string): string {
  const q = query.trim().replace(/\s+/g, ' ');
  if (q === '' || q === '*') return env === '*' ? 'All events' : `All events in ${env}`;
  if (q.length <= 60) return q;
  const cut = q.slice(0, 60);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 30 ? cut.lastIndexOf(' ') : 60)}…`;
}

/** A saved range in words: "Last 24 hours", "All time", or both ends. */
export function savedRangeLabel(range: { from: string; to: string }): string {
  const { from, to } = searchRange(range);
  return rangeLabel(from, to);
}

const CHART_NAMES: Record<string, string> = {
  line: 'Line chart',
  area: 'Area chart',
  bar: 'Bar chart',
  column: 'Column chart',
  pie: 'Pie chart',
  single_value: 'Single value',
};

/** A view in words: "Events", "Table", "Column chart". */
export function viewLabel(view: SavedView): string {
  if (view.type === 'chart') return `${CHART_NAMES[view.chart] ?? 'Chart'}${view.stacked ? ', stacked' : ''}`;
  return view.type === 'table' ? 'Table' : 'Events';
}
