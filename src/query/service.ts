import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { Principal } from '../auth/principal.js';
import { contextRun } from './context.js';
import { exportRun, type Deadline } from './export.js';
import { histogramRun } from './histogram.js';
import type { PlanDeps } from './prepare.js';
import { mapQueryRunErrors } from './run-errors.js';
import { fieldsRun } from './run-fields.js';
import { searchRun } from './run-search.js';
import type {
  ContextRequest, ContextResult, EventReader, ExportRequest, ExportSink, ExportSummary,
  FieldsResult, HistogramRequest, HistogramResult, SearchRequest, SearchResult, SearchService,
} from './types.js';

export interface QueryServiceDeps extends PlanDeps {
  /** Longest one call may run (SVC_SEARCH_TIMEOUT_SECS); default 60 s. */
  timeoutMs?: number;
  /** Told of every call stopped for its time limit or memory (svc's self-log). */
  onStopped?: (s: { reason: 'query_timeout' | 'query_too_large'; query: string; principal: string; tookMs: number }) => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The SearchService and EventReader over the storage engine (query/types.ts): each call runs under
 * the time limit here and is carried out by its runner (run-search.ts, run-fields.ts,
 * histogram.ts, context.ts, export.ts). Stateless between calls; safe to call concurrently.
 */
export class QueryService implements SearchService, EventReader {
  constructor(private readonly deps: QueryServiceDeps) {}

  /**
   * Runs one call under the time limit (and the caller's own signal): DuckDB is interrupted when
   * either fires. Errors the query's values caused become 400s (run-errors.ts). `run` may lift the
   * limit (an export, once it streams: query/export.ts); the caller's signal still applies.
   */
  private async guarded<R extends { q?: string; signal?: AbortSignal }, T>(principal: Principal, req: R, run: (req: R, deadline: Deadline) => Promise<T>, what = req.q ?? ''): Promise<T> {
    const timeoutMs = this.deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(new DOMException('the search time limit passed', 'TimeoutError')), timeoutMs);
    timer.unref();
    const signal = req.signal ? AbortSignal.any([limit.signal, req.signal]) : limit.signal;
    const t0 = performance.now();
    try {
      return await mapQueryRunErrors(() => run({ ...req, signal }, { lift: () => clearTimeout(timer) }));
    } catch (e) {
      const stopped = (reason: 'query_timeout' | 'query_too_large') =>
        this.deps.onStopped?.({ reason, query: what, principal: `${principal.kind}:${principal.name}`, tookMs: Math.round(performance.now() - t0) });
      if (isSvcError(e) && e.code === 'query_too_large') stopped('query_too_large');
      if (!signal.aborted || e !== signal.reason) throw e;
      if (limit.signal.aborted) {
        stopped('query_timeout');
        throw new SvcError('query_timeout', `the search ran longer than ${timeoutMs / 1000} s and was stopped: narrow the time range or the query`, { retryAfterSecs: 1 });
      }
      throw new SvcError('request_cancelled', 'the caller went away; the search was stopped');
    } finally {
      clearTimeout(timer);
    }
  }

  search(principal: Principal, req: SearchRequest): Promise<SearchResult> {
    return this.guarded(principal, req, (r) => searchRun(this.deps, principal, r));
  }

  histogram(principal: Principal, req: HistogramRequest): Promise<HistogramResult> {
    return this.guarded(principal, req, (r) => histogramRun(this.deps, principal, r));
  }

  fields(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult> {
    return this.guarded(principal, req, (r) => fieldsRun(this.deps, principal, r));
  }

  context(principal: Principal, req: ContextRequest): Promise<ContextResult> {
    return this.guarded(principal, req, (r) => contextRun(this.deps, principal, r), `context ${req.env}/${req.index} at ${req.time}`);
  }

  export(principal: Principal, req: ExportRequest, sink: ExportSink): Promise<ExportSummary> {
    return this.guarded(principal, req, (r, deadline) => exportRun(this.deps, principal, r, sink, deadline));
  }
}
