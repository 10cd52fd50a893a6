import { useEffect, useRef, useState } from 'react';
import { ApiError, get, isAbort } from '../api/client';
import type { FieldsResult, HistogramResult, SearchResult } from '../api/types';
import { apiParams, type SearchParams } from './params';
import { errorMessage } from '../ui/useAsyncAction';

interface Answers {
  result: SearchResult | null;
  /** The parameters `result` answers (the UI keeps showing it while the next search runs). */
  resultFor: SearchParams | null;
  histogram: HistogramResult | null;
  fields: FieldsResult | null;
  error: ApiError | null;
  /** The run (see runKey) each part last finished for, the one `error` belongs to, and a cancelled one. */
  searched: string | null;
  histogrammed: string | null;
  summarised: string | null;
  errorFor: string | null;
  cancelled: string | null;
  /** When the events of the current search were painted-ready, for the UI benchmark. */
  tookMs: number | null;
}

const HISTOGRAM_BUCKETS = 100;

/** One run of a search: its parameters by value, the page size, and the re-run counter. */
function runKey(params: SearchParams, limit: number, run: number, writes: boolean): string {
  return JSON.stringify([params.q, params.env, params.index, params.from, params.to, params.by, limit, run, writes]);
}

/**
 * Runs a search, its histogram and its field summary in parallel whenever the parameters change
 * (or `run` is bumped), cancelling whatever was still running: the server interrupts DuckDB when
 * the request goes away. `cancel()` stops the current one. Whether a part is still loading is
 * derived: it has not finished for the current run (and the run was not cancelled). `writes`: the
 * user confirmed that this run may write (outputlookup), so /api/search gets writes=allow.
 */
export function useSearchResults(params: SearchParams, limit: number, run: number, writes = false) {
  const [s, setS] = useState<Answers>({
    result: null,
    resultFor: null,
    histogram: null,
    fields: null,
    error: null,
    searched: null,
    histogrammed: null,
    summarised: null,
    errorFor: null,
    cancelled: null,
    tookMs: null,
  });
  const ctl = useRef<AbortController | null>(null);
  const key = runKey(params, limit, run, writes);
  // the search the page made on opening: opening a saved search is not a run of it (docs/saved-searches.md)
  const opening = useRef(key);

  useEffect(() => {
    const ac = new AbortController();
    ctl.current = ac;
    const base = apiParams(params);
    const t0 = performance.now();
    const done = (part: 'searched' | 'histogrammed' | 'summarised') => () => {
      if (!ac.signal.aborted) setS((x) => ({ ...x, [part]: key }));
    };
    // a failed search shows its error, not the previous search's results as if they were its own
    const fail = (e: unknown) => {
      if (isAbort(e)) return;
      const error = e instanceof ApiError ? e : new ApiError(0, 'network', errorMessage(e));
      setS((x) => ({ ...x, result: null, resultFor: null, error, errorFor: key }));
    };
    // a later run of a saved search the page was opened from: the server records it when the query is still its own
    const saved = params.saved && key !== opening.current ? params.saved : undefined;
    get<SearchResult>('/api/search', { ...base, limit, writes: writes ? 'allow' : undefined, saved }, ac.signal)
      .then((result) => setS((x) => ({ ...x, result, resultFor: params, tookMs: performance.now() - t0 })), fail)
      .finally(done('searched'));
    get<HistogramResult>(
      '/api/histogram',
      { ...base, buckets: HISTOGRAM_BUCKETS, by: params.by || undefined },
      ac.signal,
    )
      .then(
        (histogram) => setS((x) => ({ ...x, histogram })),
        (e) => !isAbort(e) && setS((x) => ({ ...x, histogram: null })),
      )
      .finally(done('histogrammed'));
    get<FieldsResult>('/api/fields', { ...base, top: 5 }, ac.signal)
      .then(
        (fields) => setS((x) => ({ ...x, fields })),
        (e) => !isAbort(e) && setS((x) => ({ ...x, fields: null })),
      )
      .finally(done('summarised'));
    return () => ac.abort();
    // params and limit are compared by value, through key: a new object with the same values must not search again
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const cancelled = s.cancelled === key;
  const cancel = () => {
    ctl.current?.abort();
    setS((x) => ({
      ...x,
      cancelled: key,
      error: new ApiError(0, 'cancelled', 'The search was cancelled.'),
      errorFor: key,
    }));
  };
  return {
    result: s.result,
    resultFor: s.resultFor,
    histogram: s.histogram,
    fields: s.fields,
    error: s.errorFor === key ? s.error : null,
    searching: s.searched !== key && !cancelled,
    histogramLoading: s.histogrammed !== key && !cancelled,
    fieldsLoading: s.summarised !== key && !cancelled,
    tookMs: s.tookMs,
    /** The current run, for what must restart with it (the progress line's clock). */
    key,
    cancel,
  };
}

export type SearchResults = ReturnType<typeof useSearchResults>;
