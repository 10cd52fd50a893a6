import { useEffect, useRef, useState } from 'react';
import { ApiError, get, isAbort } from '../api/client';
import type { FieldsResult, HistogramResult, SearchResult } from '../api/types';
import { apiParams, type SearchParams } from './params';

export interface SearchState {
  result: SearchResult | null;
  /** The parameters `result` answers (the UI keeps showing it while the next search runs). */
  resultFor: SearchParams | null;
  histogram: HistogramResult | null;
  fields: FieldsResult | null;
  error: ApiError | null;
  searching: boolean;
  histogramLoading: boolean;
  fieldsLoading: boolean;
  /** When the running search started (performance.now()), for the progress line. */
  startedAt: number | null;
  /** When the events of the current search were painted-ready, for the UI benchmark. */
  tookMs: number | null;
}

const HISTOGRAM_BUCKETS = 100;

/**
 * Runs a search, its histogram and its field summary in parallel whenever the parameters change
 * (or `run` is bumped), cancelling whatever was still running: the server interrupts DuckDB when
 * the request goes away. `cancel()` stops the current one.
 */
export function useSearchResults(params: SearchParams, limit: number, run: number) {
  const [s, setS] = useState<SearchState>({
    result: null,
    resultFor: null,
    histogram: null,
    fields: null,
    error: null,
    searching: false,
    histogramLoading: false,
    fieldsLoading: false,
    startedAt: null,
    tookMs: null,
  });
  const ctl = useRef<AbortController | null>(null);

  useEffect(() => {
    ctl.current?.abort();
    const ac = new AbortController();
    ctl.current = ac;
    const base = apiParams(params);
    const t0 = performance.now();
    setS((x) => ({ ...x, error: null, searching: true, histogramLoading: true, fieldsLoading: true, startedAt: t0 }));
    // a failed search shows its error, not the previous search's results as if they were its own
    const fail = (e: unknown) => {
      if (isAbort(e)) return;
      setS((x) => ({
        ...x,
        result: null,
        resultFor: null,
        error: e instanceof ApiError ? e : new ApiError(0, 'network', (e as Error).message),
      }));
    };
    get<SearchResult>('/api/search', { ...base, limit }, ac.signal)
      .then((result) => setS((x) => ({ ...x, result, resultFor: params, tookMs: performance.now() - t0 })), fail)
      .finally(() => !ac.signal.aborted && setS((x) => ({ ...x, searching: false, startedAt: null })));
    get<HistogramResult>(
      '/api/histogram',
      { ...base, buckets: HISTOGRAM_BUCKETS, by: params.by || undefined },
      ac.signal,
    )
      .then(
        (histogram) => setS((x) => ({ ...x, histogram })),
        (e) => !isAbort(e) && setS((x) => ({ ...x, histogram: null })),
      )
      .finally(() => !ac.signal.aborted && setS((x) => ({ ...x, histogramLoading: false })));
    get<FieldsResult>('/api/fields', { ...base, top: 5 }, ac.signal)
      .then(
        (fields) => setS((x) => ({ ...x, fields })),
        (e) => !isAbort(e) && setS((x) => ({ ...x, fields: null })),
      )
      .finally(() => !ac.signal.aborted && setS((x) => ({ ...x, fieldsLoading: false })));
    return () => ac.abort();
    // params is compared by value: a new object with the same values must not search again
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [params.q, params.env, params.index, params.from, params.to, params.by, limit, run]);

  const cancel = () => {
    ctl.current?.abort();
    setS((x) => ({
      ...x,
      searching: false,
      histogramLoading: false,
      fieldsLoading: false,
      startedAt: null,
      error: new ApiError(0, 'cancelled', 'The search was cancelled.'),
    }));
  };
  return { ...s, cancel };
}
