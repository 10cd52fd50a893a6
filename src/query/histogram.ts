import type { Principal } from '../auth/principal.js';
import { compile } from './compile.js';
import { matchesAll } from './count-fast-path.js';
import { parseFieldName } from './parser.js';
import { bucketSpec, extent, prepare, scanSpec, userFields, type PlanDeps, type Prepared } from './prepare.js';
import { refuseOutputlookup } from './run-outputlookup.js';
import { elapsedMs, jsonValue } from './results.js';
import { searchFields } from './search/filter-logic.js';
import { bucketCountsSql, stackedBucketsSql } from './sql/time-buckets.js';
import { autoSpanSecs, isoFromUs } from './time-range.js';
import type { HistogramRequest, HistogramResult } from './types.js';

/** Series names of a stacked histogram that are not values. A value spelled like one counts as OTHER. */
export const OTHER_SERIES = 'OTHER';
export const NULL_SERIES = 'NULL';
const DEFAULT_SERIES = 5;
const MAX_SERIES = 20;
const MAX_BUCKETS = 10_000;
/** Pipes that keep events one by one, so the histogram of the search counts after them. */
const COUNTED_PIPES = ['where', 'eval', 'rex', 'dedup', 'sort', 'lookup'];

/** One bucket's count, and with `by` its series (undefined: the event count of that bucket). */
interface BucketRow {
  b: number;
  n: number;
  series?: string;
}

/**
 * Events per time bucket of a search (its search part and the pipes that keep events one by one),
 * optionally stacked by a field. The stacked counts come from the same statement shape as the plain
 * ones, so they sum to the plain histogram's counts.
 */
export async function histogramRun(
  deps: PlanDeps,
  principal: Principal,
  req: HistogramRequest,
): Promise<HistogramResult> {
  const t0 = performance.now();
  const by = req.by === undefined ? undefined : parseFieldName(req.by, 'by');
  const p = await prepare(deps, principal, req);
  refuseOutputlookup(p.q, 'a histogram');
  const range = p.possible ? extent(deps.store, p) : undefined;
  if (!range)
    return {
      spanSecs: 60,
      ...(by ? { series: [] } : {}),
      buckets: [],
      meta: { matched: 0, scanned: 0, tookMs: elapsedMs(t0) },
    };
  const spanSecs = autoSpanSecs(range.fromMs, range.toMs, Math.min(Math.max(1, Math.floor(req.buckets ?? 60)), 1000));
  const spanUs = spanSecs * 1_000_000;
  const withPipes = p.a.mode === 'events' && p.q.pipes.every((x) => COUNTED_PIPES.includes(x.kind));
  // every event of the range counts when the search keeps all and no counted pipe drops any
  const allEvents = matchesAll(p.q.search) && (!withPipes || p.q.pipes.length === 0);
  let res: { rows: BucketRow[]; scanned: number; series?: string[] };
  if (by !== undefined)
    res = await stackedRows(
      deps,
      p,
      spanUs,
      withPipes,
      by,
      Math.min(Math.max(1, Math.floor(req.series ?? DEFAULT_SERIES)), MAX_SERIES),
    );
  else res = allEvents ? await allEventsPerBucket(deps, p, spanUs) : await histogramRows(deps, p, spanUs, withPipes);
  const buckets = fillBuckets(res.rows, range, spanUs, by !== undefined);
  const matched = res.rows.reduce((s, r) => s + r.n, 0);
  return {
    spanSecs,
    ...(res.series ? { series: res.series } : {}),
    buckets,
    meta: { matched, scanned: res.scanned, tookMs: elapsedMs(t0) },
  };
}

/** Every bucket of the range, empty ones included (at most MAX_BUCKETS). */
function fillBuckets(
  rows: BucketRow[],
  range: { fromMs: number; toMs: number },
  spanUs: number,
  stacked: boolean,
): HistogramResult['buckets'] {
  const byB = new Map<number, HistogramResult['buckets'][number]>();
  const firstB = Math.floor((range.fromMs * 1000) / spanUs);
  const lastB = Math.floor((range.toMs * 1000 - 1) / spanUs);
  const buckets: HistogramResult['buckets'] = [];
  for (let b = firstB; b <= lastB && buckets.length < MAX_BUCKETS; b++) {
    const bucket = {
      time: isoFromUs(b * spanUs),
      count: 0,
      ...(stacked ? { series: {} as Record<string, number> } : {}),
    };
    buckets.push(bucket);
    byB.set(b, bucket);
  }
  for (const r of rows) {
    const bucket = byB.get(r.b);
    if (!bucket) continue;
    bucket.count += r.n;
    if (bucket.series && r.series !== undefined) bucket.series[r.series] = (bucket.series[r.series] ?? 0) + r.n;
  }
  return buckets;
}

/** fast path: histogram of a search that keeps every event, from the store's per-minute counts. */
async function allEventsPerBucket(
  deps: PlanDeps,
  p: Prepared,
  spanUs: number,
): Promise<{ rows: BucketRow[]; scanned: number }> {
  const r = await deps.store.countByBucket(bucketSpec(p), spanUs);
  return { rows: r.buckets.map(([b, n]) => ({ b, n })), scanned: r.candidateEvents };
}

function countedFields(p: Prepared, withPipes: boolean, extra: string[] = []): Prepared['a']['fields'] {
  return withPipes ? p.a.fields : userFields([...searchFields(p.q.search), ...extra]);
}

async function histogramRows(
  deps: PlanDeps,
  p: Prepared,
  spanUs: number,
  withPipes: boolean,
): Promise<{ rows: BucketRow[]; scanned: number }> {
  return deps.store.scan(scanSpec(p, countedFields(p, withPipes)), async (rel, exec) => {
    const c = compile(p.q, rel, { nowMs: p.nowMs, limit: 1, searchOnly: !withPipes, lookups: p.lookups });
    const r = await exec(bucketCountsSql(c, spanUs));
    return {
      rows: r.rows.map((x) => ({ b: Number(jsonValue(x[0])), n: Number(jsonValue(x[1])) })),
      scanned: rel.candidateEvents,
    };
  });
}

/**
 * Counts per bucket and value of `by`, folded in SQL into the `k` most common values, OTHER and
 * NULL (sql/time-buckets.ts), so the answer stays small whatever the field's cardinality. Values
 * are named as the JSON answer shows them.
 */
async function stackedRows(
  deps: PlanDeps,
  p: Prepared,
  spanUs: number,
  withPipes: boolean,
  by: string,
  k: number,
): Promise<{ rows: BucketRow[]; scanned: number; series: string[] }> {
  return deps.store.scan(scanSpec(p, countedFields(p, withPipes, [by])), async (rel, exec) => {
    const c = compile(p.q, rel, {
      nowMs: p.nowMs,
      limit: 1,
      searchOnly: !withPipes,
      alsoRead: [by],
      lookups: p.lookups,
    });
    const r = await exec(stackedBucketsSql(c, by, spanUs, k, [OTHER_SERIES, NULL_SERIES]));
    const ranked = new Map<string, number>();
    const rows = r.rows.map(([b, rank, v, isNull, n]): BucketRow => {
      const series = rank !== null ? seriesName(v) : isNull === true ? NULL_SERIES : OTHER_SERIES;
      if (rank !== null) ranked.set(series, Number(jsonValue(rank)));
      return { b: Number(jsonValue(b)), n: Number(jsonValue(n)), series };
    });
    const present = new Set(rows.map((x) => x.series));
    const tail = [OTHER_SERIES, NULL_SERIES].filter((s) => present.has(s));
    const series = [...[...ranked].sort((a, b) => a[1] - b[1]).map(([name]) => name), ...tail];
    return { rows, scanned: rel.candidateEvents, series };
  });
}

/** A value as the JSON answer shows it (`500`, `true`, `web-1`). */
function seriesName(v: unknown): string {
  const j = jsonValue(v);
  return typeof j === 'string' ? j : JSON.stringify(j);
}
