import { useEffect, useMemo, useReducer } from 'react';
import type { LogEvent } from '../api/types';
import { toggled } from '../ui/sets';
import type { SearchParams } from './params';

export const FIRST_PAGE = 1000;
export const MAX_EVENTS = 10_000;
/** Live tail keeps at most this many events: memory stays flat however long it runs. */
export const LIVE_CAP = 10_000;

const WRAP_KEY = 'svc.wrap';

/**
 * What the search page holds besides the URL (which holds the search itself, see params.ts) and
 * the answers (useSearchResults): the editor's text, how the results are shown, live tail, the
 * open panels.
 */
export interface SearchUiState {
  /** The editor's text, run or not; back to the URL's query whenever that changes. */
  draft: string;
  /** Bumped to run the same query again (the URL does not change). */
  run: number;
  /**
   * The run, and the search (searchKey), the user confirmed may write (`outputlookup`): pressing
   * Search or Enter in the editor, or the confirm notice's button. A query that comes from the URL
   * (page load, back/forward, a shared link) is never confirmed: the server refuses its write.
   */
  writesRun: number | null;
  writesFor: string | null;
  /** Events asked for; "show more" raises it. */
  limit: number;
  wrap: boolean;
  /** Indexes of the events shown expanded. */
  expanded: Set<number>;
  /** The event whose surroundings are shown. */
  contextOf: LogEvent | null;
  live: boolean;
  paused: boolean;
  /** The live tail's events once it has started (null: the search's). */
  liveEvents: LogEvent[] | null;
  asking: boolean;
  /** An LLM provider is configured: the Ask button is offered. */
  llmOn: boolean;
  /** The URL's query the draft follows, and the search the per-search fields above belong to. */
  draftFor: string;
  searchFor: string;
}

type Action =
  | { type: 'sync'; params: SearchParams }
  | { type: 'draft'; q: string }
  | { type: 'rerun' }
  | { type: 'confirm'; params: SearchParams }
  | { type: 'more' }
  | { type: 'wrap' }
  | { type: 'expand'; i: number }
  | { type: 'context'; event: LogEvent | null }
  | { type: 'live' }
  | { type: 'pause' }
  | { type: 'tail'; fresh: LogEvent[]; searched: LogEvent[] }
  | { type: 'ask'; open: boolean }
  | { type: 'llm'; on: boolean };

/**
 * Which search the per-search state (expanded rows, page size, live tail) belongs to; `by` is left
 * out: it only restacks the histogram.
 */
export function searchKey(p: SearchParams): string {
  return JSON.stringify([p.q, p.env, p.index, p.from, p.to]);
}

function initial(params: SearchParams): SearchUiState {
  return {
    draft: params.q,
    run: 0,
    writesRun: null,
    writesFor: null,
    limit: FIRST_PAGE,
    wrap: localStorage.getItem(WRAP_KEY) === '1',
    expanded: new Set(),
    contextOf: null,
    live: false,
    paused: false,
    liveEvents: null,
    asking: false,
    llmOn: false,
    draftFor: params.q,
    searchFor: searchKey(params),
  };
}

function reduce(s: SearchUiState, a: Action): SearchUiState {
  switch (a.type) {
    case 'sync': {
      const next = { ...s };
      if (s.draftFor !== a.params.q) Object.assign(next, { draft: a.params.q, draftFor: a.params.q });
      const key = searchKey(a.params);
      // a new search starts from its first page, collapsed, not live
      if (s.searchFor !== key)
        Object.assign(next, { searchFor: key, expanded: new Set(), limit: FIRST_PAGE, live: false, liveEvents: null });
      // another search (back/forward, a link) is not the one confirmed, nor is this one when it comes back
      if (s.writesFor !== key) Object.assign(next, { writesRun: null, writesFor: null });
      return next;
    }
    case 'draft':
      return { ...s, draft: a.q };
    case 'rerun':
      return { ...s, run: s.run + 1 };
    case 'confirm':
      return { ...s, run: s.run + 1, writesRun: s.run + 1, writesFor: searchKey(a.params) };
    case 'more':
      return { ...s, limit: Math.min(MAX_EVENTS, s.limit * 10) };
    case 'wrap':
      return { ...s, wrap: !s.wrap };
    case 'expand':
      return { ...s, expanded: toggled(s.expanded, a.i) };
    case 'context':
      return { ...s, contextOf: a.event };
    case 'live':
      return { ...s, live: !s.live, paused: false, liveEvents: s.live ? null : s.liveEvents };
    case 'pause':
      return { ...s, paused: !s.paused };
    case 'tail':
      return { ...s, liveEvents: [...a.fresh, ...(s.liveEvents ?? a.searched)].slice(0, LIVE_CAP) };
    case 'ask':
      return { ...s, asking: a.open };
    case 'llm':
      return { ...s, llmOn: a.on };
  }
}

/**
 * The search page's one store: its state and the actions on it. When the URL's search changes,
 * the state follows during the same render (React's "adjust state when a prop changes"), so no
 * frame shows the new search with the old one's expanded rows or live tail.
 */
export function useSearchState(params: SearchParams) {
  const [state, dispatch] = useReducer(reduce, params, initial);
  if (state.draftFor !== params.q || state.searchFor !== searchKey(params)) dispatch({ type: 'sync', params });
  // the choice outlives the page
  useEffect(() => localStorage.setItem(WRAP_KEY, state.wrap ? '1' : '0'), [state.wrap]);
  const actions = useMemo(
    () => ({
      setDraft: (q: string) => dispatch({ type: 'draft', q }),
      rerun: () => dispatch({ type: 'rerun' }),
      /** Runs `params` (now, or once the URL has them) with the user's leave to write. */
      confirmRun: (params: SearchParams) => dispatch({ type: 'confirm', params }),
      showMore: () => dispatch({ type: 'more' }),
      toggleWrap: () => dispatch({ type: 'wrap' }),
      toggleExpanded: (i: number) => dispatch({ type: 'expand', i }),
      showContext: (event: LogEvent | null) => dispatch({ type: 'context', event }),
      toggleLive: () => dispatch({ type: 'live' }),
      togglePause: () => dispatch({ type: 'pause' }),
      tail: (fresh: LogEvent[], searched: LogEvent[]) => dispatch({ type: 'tail', fresh, searched }),
      setAsking: (open: boolean) => dispatch({ type: 'ask', open }),
      setLlm: (on: boolean) => dispatch({ type: 'llm', on }),
    }),
    [],
  );
  // until the sync above has been applied, a render may still hold the last search's page size,
  // rows and tail: the new search must not start with them (it searched with the old page size
  // first, then again, in Chromium)
  const current = state.searchFor === searchKey(params);
  const view = current
    ? state
    : { ...state, limit: FIRST_PAGE, expanded: NONE_EXPANDED, live: false, liveEvents: null };
  // only the run the user confirmed sends writes=allow: a later rerun of the same search (Search
  // pressed again excepted) or any other search does not
  const writes = current && state.writesRun === state.run && state.writesFor === searchKey(params);
  return { ...view, writes, ...actions };
}

const NONE_EXPANDED = new Set<number>();

export type SearchStore = ReturnType<typeof useSearchState>;
