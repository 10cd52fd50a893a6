import type { Principal } from '../auth/principal.js';
import type { CountColumn, EventStore } from '../storage/types.js';
import { analyze, compile } from './compile.js';
import { countOnlyStats, countOnlyTimechart, countOnlyTstatsByTime } from './count-fast-path.js';
import { aggName } from './pipes/aggregations.js';
import { spanOf, type TimechartPipe } from './pipes/pipe-timechart.js';
import { finalPatterns } from './pipes/pipe-patterns.js';
import { finalTranspose, transposeTable } from './pipes/pipe-transpose.js';
import { SHAPE_ROWS } from './patterns/shape-sql.js';
import { patternsTable } from './patterns/template.js';
import { bucketSpec, extent, prepare, scanSpec, type PlanDeps, type Prepared } from './prepare.js';
import { elapsedMs, jsonValue, shapeTimechart, toEvent } from './results.js';
import { noMatchHint } from './run-hint.js';
import { OUTPUTLOOKUP_MAX_ROWS, outputlookupOf, writeOutputlookup } from './run-outputlookup.js';
import { COLLECT_MAX_ROWS, collectOf, writeCollect } from './run-collect.js';
import { newestCutoff, sinceSpec } from './run-newest-cutoff.js';
import { isoFromUs } from './time-range.js';
import type { SearchMeta, SearchRequest, SearchResult } from './types.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;
/** Rows a table result may return. */
const TABLE_ROWS = 10_000;

/** What an answer cut at TABLE_ROWS says, so a table or chart never looks whole when it is not. */
const ROWS_CUT = `the answer has more than ${TABLE_ROWS.toLocaleString('en')} rows: only the first ${TABLE_ROWS.toLocaleString('en')} are shown; narrow the search or its range`;

/**
 * What a timechart cut at TABLE_ROWS says: the statement's rows are (bucket, series) pairs before
 * they become columns, so the cut ends the chart early, at `last`.
 */
const timechartCut = (last: string) =>
  `the timechart has more than ${TABLE_ROWS.toLocaleString('en')} (time, series) rows before its series become columns, so it ends at ${last}: widen the span, narrow the range, or keep fewer series with limit=N`;

/**
 * One search (SearchService.search): parse, narrow by RBAC, then the cheapest path that gives the
 * answer (the two-step path of a plain event search, the store's bucket counts, or one statement
 * with its count), and a hint when nothing matched.
 */
export async function searchRun(deps: PlanDeps, principal: Principal, req: SearchRequest): Promise<SearchResult> {
  const t0 = performance.now();
  const p = await prepare(deps, principal, req);
  const output = outputlookupOf(p.q, principal, deps, req.writes);
  const collect = collectOf(p, principal, deps, req.writes);
  const asked = Math.min(Math.max(1, Math.floor(req.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
  // collect writes every event or row up to its cap, reading one more to refuse rather than cut
  const limit = collect ? COLLECT_MAX_ROWS + 1 : asked;
  let result: SearchResult;
  if (!p.possible) {
    result = {
      events: [],
      ...(p.a.mode === 'table' ? { columns: [], rows: [] } : {}),
      meta: { matched: 0, scanned: 0, tookMs: 0 },
    };
  } else if (p.a.plainEvents) {
    result = await plainEvents(deps.store, p, Math.min(limit, p.a.headN ?? Infinity));
  } else {
    // outputlookup as the last pipe reads one row past its cap, to refuse rather than cut
    const last = output !== undefined && output === p.q.pipes[p.q.pipes.length - 1];
    const rows = last ? OUTPUTLOOKUP_MAX_ROWS + 1 : collect ? COLLECT_MAX_ROWS + 1 : TABLE_ROWS;
    result = await pipeline(deps.store, p, limit, rows);
  }
  if (output && p.possible && output !== p.q.pipes[p.q.pipes.length - 1]) {
    // in the middle (`| outputlookup t | stats count`): it writes the rows that reach it and passes
    // them on, as Splunk's does; the search up to it runs once more for the rows it writes
    const head = { search: p.q.search, pipes: p.q.pipes.slice(0, p.q.pipes.indexOf(output) + 1) };
    const written = await pipeline(
      deps.store,
      { ...p, q: head, a: analyze(head, p.nowMs) },
      limit,
      OUTPUTLOOKUP_MAX_ROWS + 1,
    );
    await writeOutputlookup(deps, principal, output, written);
    if (written.meta.warnings) (result.meta.warnings ??= []).push(...written.meta.warnings);
  } else if (output) {
    await writeOutputlookup(deps, principal, output, result);
    if (result.rows && result.rows.length > TABLE_ROWS) result.rows = result.rows.slice(0, TABLE_ROWS);
  }
  if (collect) {
    await writeCollect(deps, collect, result, p.nowMs);
    if (result.rows && result.rows.length > TABLE_ROWS) result.rows = result.rows.slice(0, TABLE_ROWS);
    result.events = result.events.slice(0, asked);
  }
  if (result.meta.matched === 0) result.meta.hint = await noMatchHint(deps, p, req);
  // files the store left out (damaged, unreadable): the answer says it is incomplete
  const warnings = [...p.warnings, ...(p.possible ? (deps.store.readWarnings?.(p.targets.envs) ?? []) : [])];
  if (warnings.length > 0) result.meta.warnings = [...warnings, ...(result.meta.warnings ?? [])];
  result.meta.tookMs = elapsedMs(t0);
  return result;
}

/**
 * fast path for `terms | head N`: one pass counts the matches and finds the time of the N-th
 * newest with only `_time` materialised; a second scan, pruned to blocks from that time on,
 * fetches the full rows (run-newest-cutoff.ts).
 */
async function plainEvents(store: EventStore, p: Prepared, k: number): Promise<SearchResult> {
  const first = await newestCutoff(store, p, k);
  const meta: SearchMeta = { matched: first.n, scanned: first.scanned, tookMs: 0 };
  if (first.n === 0 || first.cutoffUs === null) return { events: [], meta };
  const cutoffUs = first.cutoffUs;
  const events = await store.scan(sinceSpec(p, cutoffUs), async (rel, exec) => {
    const c = compile(p.q, rel, { nowMs: p.nowMs, limit: k, searchOnly: true, sinceUs: cutoffUs });
    const r = await exec(c.sql);
    return r.rows.map((row) => toEvent(r.columns, row));
  });
  return { events, meta };
}

/** Any other search: the compiled statement and its count, side by side on one scan. */
async function pipeline(store: EventStore, p: Prepared, limit: number, tableRows: number): Promise<SearchResult> {
  const range = extent(store, p);
  // a plain table answer says when it was cut; outputlookup and collect refuse past their caps instead
  const cutSays = tableRows === TABLE_ROWS;
  const countChart = countOnlyTimechart(p.q);
  if (countChart) return countTimechart(store, p, countChart, range);
  const countBy = countOnlyStats(p.q);
  if (countBy) return countStats(store, p, countBy);
  const countByTime = countOnlyTstatsByTime(p.q);
  if (countByTime) return countTstatsByTime(store, p, countByTime, range);
  return store.scan(scanSpec(p, p.a.fields), async (rel, exec) => {
    // a final patterns merges every shape of its stage into templates after the statement
    const patterns = finalPatterns(p.q.pipes);
    // a final transpose turns the rows into columns, which the data names, after the statement
    const transpose = finalTranspose(p.q.pipes);
    const c = compile(p.q, rel, {
      nowMs: p.nowMs,
      range,
      // one row past the cap tells a cut answer from a whole one (outputlookup and collect already ask one more)
      limit: patterns ? SHAPE_ROWS : p.a.mode === 'table' ? (cutSays ? tableRows + 1 : tableRows) : limit,
      lookups: p.lookups,
      searchRange: { fromMs: p.fromMs, toMs: p.toMs },
    });
    const [rows, count] = await Promise.all([exec(c.sql), exec(c.countSql)]);
    const meta: SearchMeta = { matched: Number(jsonValue(count.rows[0][0])), scanned: rel.candidateEvents, tookMs: 0 };
    if (c.mode === 'events') return { events: rows.rows.map((r) => toEvent(rows.columns, r)), meta };
    let table: { columns: string[]; rows: unknown[][] } = {
      columns: rows.columns,
      rows: rows.rows.map((r) => r.map(jsonValue)),
    };
    if (cutSays && !patterns && table.rows.length > tableRows) {
      table.rows.length = tableRows;
      if (c.timechart && c.timechart.over === undefined) {
        // the last bucket kept may lack some of its series: it goes too, so no bucket is drawn short
        const ti = table.columns.indexOf('_time');
        const last = table.rows[table.rows.length - 1][ti];
        table.rows = table.rows.filter((r) => r[ti] !== last);
        meta.warnings = [timechartCut(String(table.rows.at(-1)?.[ti] ?? last))];
      } else meta.warnings = [ROWS_CUT];
    }
    if (c.timechart) table = shapeTimechart(c.timechart, table.columns, table.rows);
    if (patterns) table = patternsTable(patterns, table.rows, TABLE_ROWS);
    if (transpose) table = transposeTable(transpose, table.columns, table.rows);
    return { events: [], columns: table.columns, rows: table.rows, meta };
  });
}

/**
 * fast path for `* | timechart [span=…] count`: the store answers counts per bucket from its
 * per-minute metadata (EventStore.countByBucket), reading rows only where that cannot answer.
 * Same result as the SQL path: rows `[_time text, count]` by time, capped at TABLE_ROWS before
 * the empty buckets are filled; `matched` is every event of the range.
 */
async function countTimechart(
  store: EventStore,
  p: Prepared,
  tc: TimechartPipe,
  range: { fromMs: number; toMs: number } | undefined,
): Promise<SearchResult> {
  const spanSecs = spanOf(tc.span, range, tc.minspan);
  const spanUs = spanSecs * 1_000_000;
  const r = await store.countByBucket(bucketSpec(p), spanUs);
  const name = aggName(tc.aggs[0]);
  const rows = r.buckets.slice(0, TABLE_ROWS).map(([b, n]) => [isoFromUs(b * spanUs), n]);
  const table = shapeTimechart({ spanSecs, aggs: [{ name, zero: true }] }, ['_time', name], rows);
  const matched = r.buckets.reduce((sum, [, n]) => sum + n, 0);
  return {
    events: [],
    columns: table.columns,
    rows: table.rows,
    meta: {
      matched,
      scanned: r.candidateEvents,
      tookMs: 0,
      ...(r.buckets.length > TABLE_ROWS ? { warnings: [timechartCut(String(rows.at(-1)?.[0]))] } : {}),
    },
  };
}

/**
 * fast path for `| tstats count by _time span=…`: the per-bucket counts of countTimechart, without
 * its empty buckets (the answer of `bin _time span=… | stats count by _time`).
 */
async function countTstatsByTime(
  store: EventStore,
  p: Prepared,
  t: { span: string; name: string },
  range: { fromMs: number; toMs: number } | undefined,
): Promise<SearchResult> {
  const spanUs = spanOf(t.span, range) * 1_000_000;
  const r = await store.countByBucket(bucketSpec(p), spanUs);
  // ascending, only buckets that hold events: the stats answer's rows already
  const buckets = r.buckets;
  return {
    events: [],
    columns: ['_time', t.name],
    rows: buckets.slice(0, TABLE_ROWS).map(([b, n]) => [isoFromUs(b * spanUs), n]),
    meta: {
      matched: buckets.reduce((sum, [, n]) => sum + n, 0),
      scanned: r.candidateEvents,
      tookMs: 0,
      ...(buckets.length > TABLE_ROWS ? { warnings: [ROWS_CUT] } : {}),
    },
  };
}

/**
 * fast path for `* | stats count by host` (source, sourcetype, index, env): the store answers
 * from its blocks' value counts where the range holds them whole (EventStore.countByValue). Same
 * result as the SQL path: one row per value in DuckDB's ascending order (bytes of the UTF-8
 * text), capped at TABLE_ROWS; `matched` is every event of the range.
 */
async function countStats(
  store: EventStore,
  p: Prepared,
  s: { column: CountColumn; name: string },
): Promise<SearchResult> {
  const r = await store.countByValue(bucketSpec(p), s.column);
  const keyed = [...r.counts].map(([v, n]) => ({ v, n, key: Buffer.from(v) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const matched = keyed.reduce((sum, x) => sum + x.n, 0);
  return {
    events: [],
    columns: [s.column, s.name],
    rows: keyed.slice(0, TABLE_ROWS).map((x) => [x.v, x.n]),
    meta: {
      matched,
      scanned: r.candidateEvents,
      tookMs: 0,
      ...(keyed.length > TABLE_ROWS ? { warnings: [ROWS_CUT] } : {}),
    },
  };
}
