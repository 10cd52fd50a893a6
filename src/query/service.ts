import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { Principal } from '../auth/principal.js';
import { SearchAdmission, type AdmissionLimits } from './admission.js';
import { EnvSearchCaps } from './env-caps.js';
import { contextRun } from './context.js';
import { exportRun, type Deadline } from './export.js';
import { histogramRun } from './histogram.js';
import type { PlanDeps } from './prepare.js';
import { mapQueryRunErrors } from './run-errors.js';
import { fieldsRun } from './run-fields.js';
import { searchRun } from './run-search.js';
import { printQuery } from './pipes/registry.js';
import { SUBSEARCH_MAXOUT } from './subsearch.js';
import type { SearchKind, SearchObserver, SearchOutcome } from '../metrics/search.js';
import type {
  ContextRequest,
  ContextResult,
  EventReader,
  ExportRequest,
  ExportSink,
  ExportSummary,
  FieldsResult,
  HistogramRequest,
  HistogramResult,
  SearchRequest,
  SearchResult,
  SearchService,
} from './types.js';

export interface QueryServiceDeps extends PlanDeps {
  /** Longest one call may run (SVC_SEARCH_TIMEOUT_SECS); default 60 s. */
  timeoutMs?: number;
  /** The gate of concurrent searches (query/admission.ts); default: DEFAULT_ADMISSION. */
  admission?: SearchAdmission;
  /** Told of every call stopped for its time limit, its memory or its caller leaving (svc's self-log). */
  onStopped?: (s: { reason: StopReason; query: string; principal: string; tookMs: number }) => void;
  /** Told of every call once it ended (metrics/search.ts). */
  observer?: SearchObserver;
}

type StopReason = 'query_timeout' | 'query_too_large' | 'request_cancelled';

const DEFAULT_TIMEOUT_MS = 60_000;
/** A search whose caller left after running this long is told to onStopped. */
const CANCEL_RECORD_MS = 1000;

/** The limits of a service built without its own gate (benchmarks, tools): config's defaults on 2 cores. */
export const DEFAULT_ADMISSION: AdmissionLimits = {
  maxRunning: 2,
  maxPerPrincipal: 3,
  maxQueued: 8,
  maxWaitMs: 5000,
  monitorRunning: 1,
};

/**
 * The SearchService and EventReader over the storage engine (query/types.ts): each call runs under
 * the time limit here and is carried out by its runner (run-search.ts, run-fields.ts,
 * histogram.ts, context.ts, export.ts). Stateless between calls; safe to call concurrently.
 */
export class QueryService implements SearchService, EventReader {
  private readonly admission: SearchAdmission;
  private readonly envCaps: EnvSearchCaps;

  private readonly deps: QueryServiceDeps;

  constructor(deps: QueryServiceDeps) {
    this.admission = deps.admission ?? new SearchAdmission(DEFAULT_ADMISSION);
    this.envCaps = new EnvSearchCaps(deps.control);
    // a subsearch runs inside its outer call: its slot, its time limit and its caller's signal
    this.deps = {
      ...deps,
      subsearch: (principal, sub, req) =>
        searchRun(this.deps, principal, {
          q: printQuery(sub),
          env: req.env,
          index: req.index,
          from: req.from,
          to: req.to,
          limit: SUBSEARCH_MAXOUT,
          signal: req.signal,
        }),
    };
  }

  /**
   * Runs one call once the admission gate lets it (query/admission.ts: it may wait there, or be
   * refused with too_many_searches), under the time limit (and the caller's own signal): DuckDB is
   * interrupted when either fires; the wait for a slot is not part of the time limit. Errors the query's values caused become 400s (run-errors.ts). `run` may lift the
   * limit (an export, once it streams: query/export.ts); the caller's signal still applies.
   */
  private async guarded<R extends { q?: string; env?: string; signal?: AbortSignal; lane?: 'monitor' }, T>(
    kind: SearchKind,
    principal: Principal,
    req: R,
    run: (req: R, deadline: Deadline) => Promise<T>,
    what = req.q ?? '',
  ): Promise<T> {
    const who = `${principal.kind}:${principal.id}`;
    // an env's own cap on a caller's searches (query/env-caps.ts); monitors run in their own lane
    const leaveEnv =
      req.lane === 'monitor' ? () => undefined : this.envCaps.enter({ key: who, name: principal.name }, req.env);
    try {
      return await this.admitted(kind, principal, req, run, what, who);
    } finally {
      leaveEnv();
    }
  }

  private async admitted<R extends { q?: string; signal?: AbortSignal; lane?: 'monitor' }, T>(
    kind: SearchKind,
    principal: Principal,
    req: R,
    run: (req: R, deadline: Deadline) => Promise<T>,
    what: string,
    who: string,
  ): Promise<T> {
    let release: () => void;
    try {
      release = await this.admission.admit({ who, lane: req.lane ?? 'caller' }, req.signal);
    } catch (e) {
      const err =
        req.signal?.aborted && e === req.signal.reason
          ? new SvcError('request_cancelled', 'the caller went away before the search began')
          : e;
      this.deps.observer?.finished(kind, outcomeOf(err), undefined);
      throw err;
    }
    const t0 = performance.now();
    try {
      const answer = await this.limited(principal, req, run, what);
      this.deps.observer?.finished(kind, 'ok', (performance.now() - t0) / 1000);
      return answer;
    } catch (e) {
      this.deps.observer?.finished(kind, outcomeOf(e), (performance.now() - t0) / 1000);
      throw e;
    } finally {
      release();
    }
  }

  private async limited<R extends { q?: string; signal?: AbortSignal }, T>(
    principal: Principal,
    req: R,
    run: (req: R, deadline: Deadline) => Promise<T>,
    what: string,
  ): Promise<T> {
    const timeoutMs = this.deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const limit = new AbortController();
    const timer = setTimeout(
      () => limit.abort(new DOMException('the search time limit passed', 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
    const signal = req.signal ? AbortSignal.any([limit.signal, req.signal]) : limit.signal;
    const t0 = performance.now();
    try {
      return await mapQueryRunErrors(() => run({ ...req, signal }, { lift: () => clearTimeout(timer) }));
    } catch (e) {
      const stopped = (reason: StopReason) =>
        this.deps.onStopped?.({
          reason,
          query: what,
          principal: `${principal.kind}:${principal.name}`,
          tookMs: Math.round(performance.now() - t0),
        });
      // the UI drops short searches all the time as the user types: only long ones are worth a record
      const long = performance.now() - t0 >= CANCEL_RECORD_MS;
      if (isSvcError(e) && e.code === 'query_too_large') stopped('query_too_large');
      // an export's sink finds the client gone on its own (the socket closed under a write)
      if (isSvcError(e) && e.code === 'request_cancelled' && e !== signal.reason && long) stopped('request_cancelled');
      if (!signal.aborted || e !== signal.reason) throw e;
      if (limit.signal.aborted) {
        stopped('query_timeout');
        throw new SvcError(
          'query_timeout',
          `the search ran longer than ${timeoutMs / 1000} s and was stopped: narrow the time range or the query`,
          { retryAfterSecs: 1 },
        );
      }
      if (long) stopped('request_cancelled');
      throw new SvcError('request_cancelled', 'the caller went away; the search was stopped');
    } finally {
      clearTimeout(timer);
    }
  }

  search(principal: Principal, req: SearchRequest): Promise<SearchResult> {
    return this.guarded('search', principal, req, (r) => searchRun(this.deps, principal, r));
  }

  histogram(principal: Principal, req: HistogramRequest): Promise<HistogramResult> {
    return this.guarded('histogram', principal, req, (r) => histogramRun(this.deps, principal, r));
  }

  fields(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult> {
    return this.guarded('fields', principal, req, (r) => fieldsRun(this.deps, principal, r));
  }

  context(principal: Principal, req: ContextRequest): Promise<ContextResult> {
    return this.guarded(
      'context',
      principal,
      req,
      (r) => contextRun(this.deps, principal, r),
      `context ${req.env}/${req.index} at ${req.time}`,
    );
  }

  export(principal: Principal, req: ExportRequest, sink: ExportSink): Promise<ExportSummary> {
    return this.guarded('export', principal, req, (r, deadline) => exportRun(this.deps, principal, r, sink, deadline));
  }
}

/** How a call that threw ended, for the metrics. */
function outcomeOf(e: unknown): SearchOutcome {
  if (!isSvcError(e)) return 'error';
  if (e.code === 'too_many_searches') return 'refused';
  if (e.code === 'query_timeout') return 'timeout';
  if (e.code === 'request_cancelled') return 'cancelled';
  return 'error';
}
