import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { Principal } from '../auth/principal.js';
import type { RelationInfo } from '../storage/types.js';
import { compile } from './compile.js';
import { countOnlyTimechart } from './count-fast-path.js';
import { histogramRun } from './histogram.js';
import { aggName } from './pipes/aggregations.js';
import { spanOf, type TimechartPipe } from './pipes/pipe-timechart.js';
import { bucketSpec, extent, newestCutoff, partitionsOf, prepare, scanSpec, type PlanDeps, type Prepared } from './prepare.js';
import { jsonValue, shapeTimechart, toEvent } from './results.js';
import { mapQueryRunErrors } from './run-errors.js';
import { countEventsSql } from './sql/count-events.js';
import { fieldSummarySql } from './sql/field-summary.js';
import { isoFromUs } from './time-range.js';
import { contextRun } from './context.js';
import { exportRun, type Deadline } from './export.js';
import type {
  ContextRequest, ContextResult, EventReader, ExportRequest, ExportSink, ExportSummary,
  FieldsResult, HistogramRequest, HistogramResult, SearchMeta, SearchRequest, SearchResult, SearchService,
} from './types.js';

export interface QueryServiceDeps extends PlanDeps {
  /** Longest one call may run (SVC_SEARCH_TIMEOUT_SECS); default 60 s. */
  timeoutMs?: number;
  /** Told of every call stopped for its time limit or memory (svc's self-log). */
  onStopped?: (s: { reason: 'query_timeout' | 'query_too_large'; query: string; principal: string; tookMs: number }) => void;
}

const DEFAULT_LIMIT = 100;
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_LIMIT = 10_000;
/** Rows a table result may return. */
const TABLE_ROWS = 10_000;
/** Newest matching events the field summary samples. */
const FIELD_SAMPLE = 10_000;

/**
 * The SearchService and EventReader over the storage engine (query/types.ts). Stateless between
 * calls; every call parses, narrows by RBAC, plans one scan (or two for plain event searches) and
 * shapes the answer. The histogram, context and export live in their own files.
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

  private prepare(principal: Principal, req: SearchRequest): Prepared {
    return prepare(this.deps, principal, req);
  }

  search(principal: Principal, req: SearchRequest): Promise<SearchResult> {
    return this.guarded(principal, req, (r) => this.searchRun(principal, r));
  }

  private async searchRun(principal: Principal, req: SearchRequest): Promise<SearchResult> {
    const t0 = performance.now();
    const p = this.prepare(principal, req);
    const limit = Math.min(Math.max(1, Math.floor(req.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
    let result: SearchResult;
    if (!p.possible) {
      result = { events: [], ...(p.a.mode === 'table' ? { columns: [], rows: [] } : {}), meta: { matched: 0, scanned: 0, tookMs: 0 } };
    } else if (p.a.plainEvents) {
      result = await this.plainEvents(p, Math.min(limit, p.a.headN ?? Infinity));
    } else {
      result = await this.pipeline(p, limit);
    }
    if (result.meta.matched === 0) result.meta.hint = await this.hint(p, req);
    result.meta.tookMs = Math.round((performance.now() - t0) * 100) / 100;
    return result;
  }

  /**
   * fast path for `terms | head N`: one pass counts the matches and finds the time of the N-th
   * newest with only `_time` materialised; a second scan, pruned to blocks from that time on,
   * fetches the full rows.
   */
  private async plainEvents(p: Prepared, k: number): Promise<SearchResult> {
    const first = await newestCutoff(this.deps.store, p, k);
    const meta: SearchMeta = { matched: first.n, scanned: first.scanned, tookMs: 0 };
    if (first.n === 0 || first.cutoffUs === null) return { events: [], meta };
    const cutoffUs = first.cutoffUs;
    const spec = scanSpec(p, '*');
    spec.fromUs = Math.max(spec.fromUs ?? -Infinity, cutoffUs);
    const events = await this.deps.store.scan(spec, async (rel, exec) => {
      const c = compile(p.q, rel, { nowMs: p.nowMs, limit: k, searchOnly: true, sinceUs: cutoffUs });
      const r = await exec(c.sql);
      return r.rows.map((row) => toEvent(r.columns, row));
    });
    return { events, meta };
  }

  private async pipeline(p: Prepared, limit: number): Promise<SearchResult> {
    const range = extent(this.deps.store, p);
    const countChart = countOnlyTimechart(p.q);
    if (countChart) return this.countTimechart(p, countChart, range);
    return this.deps.store.scan(scanSpec(p, p.a.fields), async (rel, exec) => {
      const c = compile(p.q, rel, { nowMs: p.nowMs, range, limit: p.a.mode === 'table' ? TABLE_ROWS : limit });
      const [rows, count] = await Promise.all([exec(c.sql), exec(c.countSql)]);
      const meta: SearchMeta = { matched: Number(jsonValue(count.rows[0][0])), scanned: rel.candidateEvents, tookMs: 0 };
      if (c.mode === 'events') return { events: rows.rows.map((r) => toEvent(rows.columns, r)), meta };
      let table = { columns: rows.columns, rows: rows.rows.map((r) => r.map(jsonValue)) };
      if (c.timechart) table = shapeTimechart(c.timechart, table.columns, table.rows);
      return { events: [], columns: table.columns, rows: table.rows, meta };
    });
  }

  /**
   * fast path for `* | timechart [span=…] count`: the store answers counts per bucket from its
   * per-minute metadata (EventStore.countByBucket), reading rows only where that cannot answer.
   * Same result as the SQL path: rows `[_time text, count]` by time, capped at TABLE_ROWS before
   * the empty buckets are filled; `matched` is every event of the range.
   */
  private async countTimechart(p: Prepared, tc: TimechartPipe, range: { fromMs: number; toMs: number } | undefined): Promise<SearchResult> {
    const spanSecs = spanOf(tc.span, range);
    const spanUs = spanSecs * 1_000_000;
    const r = await this.deps.store.countByBucket(bucketSpec(p), spanUs);
    const name = aggName(tc.aggs[0]);
    const rows = r.buckets.slice(0, TABLE_ROWS).map(([b, n]) => [isoFromUs(b * spanUs), n]);
    const table = shapeTimechart({ spanSecs, aggs: [{ name, zero: true }] }, ['_time', name], rows);
    const matched = r.buckets.reduce((sum, [, n]) => sum + n, 0);
    return { events: [], columns: table.columns, rows: table.rows, meta: { matched, scanned: r.candidateEvents, tookMs: 0 } };
  }

  /** Why nothing matched: how many events the env/index hold, and how many lie outside the time range. */
  private async hint(p: Prepared, req: SearchRequest): Promise<SearchMeta['hint']> {
    const where = `env ${p.targets.envs.length === 1 ? `"${p.targets.envs[0]}"` : `(${p.targets.envs.join(', ')})`}${req.index && req.index !== '*' ? ` index "${req.index}"` : ''}`;
    if (p.targets.envs.length === 0) return { eventsOutsideRange: 0, message: 'no environment to search: none is readable with these credentials' };
    const envName = p.targets.envs[0];
    if (p.targets.envs.length === 1 && !this.deps.control.env(envName)) {
      return { eventsOutsideRange: 0, message: `environment "${envName}" does not exist: check env` };
    }
    const parts = partitionsOf(this.deps.store, p);
    const total = parts.reduce((s, x) => s + x.events, 0);
    if (total === 0) return { eventsOutsideRange: 0, message: `${where} holds no events: check env and index` };
    const earliest = isoFromUs(Math.min(...parts.map((s) => s.minTimeUs)));
    const latest = isoFromUs(Math.max(...parts.map((s) => s.maxTimeUs)));
    let inRange = total;
    if (p.fromMs !== undefined || p.toMs !== undefined) {
      inRange = await this.deps.store.scan(scanSpec(p, [], []), async (rel, exec) => Number(jsonValue((await exec(countEventsSql(rel))).rows[0][0])));
    }
    const outside = total - inRange;
    const message =
      outside > 0
        ? `no events match; ${outside} events of ${where} lie outside the time range (data from ${earliest} to ${latest}): widen the time range`
        : `no events match the query; ${where} holds ${total} events from ${earliest} to ${latest}`;
    return { eventsOutsideRange: outside, earliest, latest, message };
  }

  histogram(principal: Principal, req: HistogramRequest): Promise<HistogramResult> {
    return this.guarded(principal, req, (r) => histogramRun(this.deps, principal, r));
  }

  context(principal: Principal, req: ContextRequest): Promise<ContextResult> {
    return this.guarded(principal, req, (r) => contextRun(this.deps, principal, r), `context ${req.env}/${req.index} at ${req.time}`);
  }

  export(principal: Principal, req: ExportRequest, sink: ExportSink): Promise<ExportSummary> {
    return this.guarded(principal, req, (r, deadline) => exportRun(this.deps, principal, r, sink, deadline));
  }

  fields(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult> {
    return this.guarded(principal, req, (r) => this.fieldsRun(principal, r));
  }

  private async fieldsRun(principal: Principal, req: SearchRequest & { top?: number }): Promise<FieldsResult> {
    const t0 = performance.now();
    const p = this.prepare(principal, req);
    const top = Math.min(Math.max(1, Math.floor(req.top ?? 5)), 100);
    if (!p.possible) return { fields: [], meta: { matched: 0, scanned: 0, tookMs: 0 } };
    const types = new Map(this.deps.store.fields({ envs: p.targets.envs, indexes: p.targets.indexes, fromUs: scanSpec(p, []).fromUs, toUs: scanSpec(p, []).toUs }).map((f) => [f.name, f.type]));
    // the sample is the newest FIELD_SAMPLE matches: find the time of the last one reading few
    // columns, then extract every field only from blocks and rows from that time on
    const first = await newestCutoff(this.deps.store, p, FIELD_SAMPLE);
    if (first.n === 0 || first.cutoffUs === null) return { fields: [], meta: { matched: 0, scanned: first.scanned, tookMs: Math.round((performance.now() - t0) * 100) / 100 } };
    const spec = scanSpec(p, '*');
    spec.fromUs = Math.max(spec.fromUs ?? -Infinity, first.cutoffUs);
    const res = await this.deps.store.scan(spec, async (rel: RelationInfo, exec) => {
      const c = compile(p.q, rel, { nowMs: p.nowMs, limit: 1, searchOnly: true, sinceUs: first.cutoffUs! });
      const names = ['index', 'host', 'source', 'sourcetype', 'env', ...rel.fieldColumns];
      const r = await exec(fieldSummarySql(c, names, FIELD_SAMPLE, top));
      return { rows: r.rows, matched: first.n, scanned: first.scanned };
    });
    const byName = new Map<string, FieldsResult['fields'][number]>();
    for (const [name, value, cnt, total] of res.rows) {
      const n = String(name);
      const type = ['index', 'host', 'source', 'sourcetype', 'env'].includes(n) ? 'string' : types.get(n) ?? 'string';
      let f = byName.get(n);
      if (!f) byName.set(n, (f = { name: n, type, count: Number(jsonValue(total)), top: [] }));
      const v = type === 'number' && value !== null && value !== '' && !Number.isNaN(Number(value)) ? Number(value) : type === 'boolean' ? value === 'true' : value;
      f.top.push({ value: v, count: Number(jsonValue(cnt)) });
    }
    const fields = [...byName.values()].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
    for (const f of fields) f.top.sort((a, b) => b.count - a.count || (String(a.value) < String(b.value) ? -1 : 1));
    return { fields, meta: { matched: res.matched, scanned: res.scanned, tookMs: Math.round((performance.now() - t0) * 100) / 100 } };
  }
}

