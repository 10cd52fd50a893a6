import type { Clock } from '../clock/clock.js';
import type { ControlReader } from '../control/types.js';
import type { Principal } from '../auth/principal.js';
import { resolveSearchTargets, type SearchTargets } from '../auth/rbac.js';
import type { BucketCountSpec, EventStore, PartitionSummary, ScanSpec } from '../storage/types.js';
import { analyze, subqueries, type QueryAnalysis } from './compile.js';
import type { LookupCatalog, LookupWriter } from './lookup-catalog.js';
import type { EventSink } from './event-sink.js';
import { parse, type Query } from './parser.js';
import { checkLookupTables } from './pipes/pipe-lookup.js';
import { conjuncts } from './search/filter-logic.js';
import { wildcardRegex } from './schema.js';
import { isRelativeTime, parseTime } from './time-range.js';
import { SvcError } from '../errors/svc-error.js';
import type { SearchRequest, SearchResult } from './types.js';
import type { Subquery } from './parser-api.js';
import { hasSubsearch, resolveSubsearches } from './subsearch.js';
import { knowledgeObjectWarnings } from './knowledge-objects.js';

/** What planning a search needs from the rest of svc. */
export interface PlanDeps {
  store: EventStore;
  control: ControlReader;
  clock: Clock;
  /** The tables of the `lookup` pipe (src/lookups/); unset: every table is unknown. */
  lookups?: LookupCatalog;
  /** Writes the tables of `outputlookup` (src/lookups/); unset: outputlookup is refused. */
  lookupWriter?: LookupWriter;
  /**
   * Runs a subsearch of the search part for `principal` over the request's envs, indexes and time
   * range (query/subsearch.ts); QueryService sets it. Unset: a query with one is refused.
   */
  subsearch?: (principal: Principal, sub: Subquery, req: SearchRequest) => Promise<SearchResult>;
  /** Writes the events of `collect` (run-collect.ts); unset: collect is refused. */
  eventSink?: EventSink;
}

/** A search parsed, narrowed by RBAC and given its time range: what every kind of call plans from. */
export interface Prepared {
  q: Query;
  a: QueryAnalysis;
  targets: SearchTargets;
  nowMs: number;
  fromMs?: number;
  toMs?: number;
  /** False when nothing can match (no readable env, empty time range). */
  possible: boolean;
  signal?: AbortSignal;
  /** For compile (CompileOptions.lookups). */
  lookups?: LookupCatalog;
  /** What the answer must say it left out (a subsearch cut at its row limit). */
  warnings: string[];
}

export { userFields } from './compile.js';

/**
 * Parses the query, runs its subsearches (query/subsearch.ts), resolves env/index by RBAC (throws
 * access_denied) and sets the time range: the query's earliest=/latest= when it has one, else the
 * request's from/to.
 */
export async function prepare(deps: PlanDeps, principal: Principal, req: SearchRequest): Promise<Prepared> {
  const nowMs = deps.clock.now();
  const warnings: string[] = [];
  let q = parse(req.q ?? '');
  warnings.push(...knowledgeObjectWarnings(q));
  if (hasSubsearch(q)) {
    const run = deps.subsearch;
    if (!run) throw new SvcError('invalid_query', 'subsearches cannot run here: write the filter out');
    q = await resolveSubsearches(
      q,
      (sub) => run(principal, sub, req),
      (w) => warnings.push(w),
    );
  }
  const targets = resolveSearchTargets(
    principal,
    req,
    deps.control.envs().map((e) => e.name),
  );
  const a = analyze(q, nowMs);
  const reqFrom = req.from ? parseTime(req.from, nowMs) : undefined;
  const reqTo = req.to ? parseTime(req.to, nowMs) : undefined;
  // a range the caller wrote backwards is a mistake to name, not a range that holds nothing
  if (reqFrom !== undefined && reqTo !== undefined && reqFrom > reqTo) {
    throw new SvcError('invalid_time', `from "${req.from}" is after to "${req.to}": want from before to`);
  }
  // Splunk's rule: a time modifier in the query (earliest=, latest=) sets the range instead of the
  // time picker's (the request's from/to), so `earliest=-10y` is not cut to the picker's 24 hours
  const fromQuery = a.fromMs !== undefined || a.toMs !== undefined;
  const from = (fromQuery ? [a.fromMs] : [reqFrom]).filter((x): x is number => x !== undefined);
  const to = (fromQuery ? [a.toMs] : [reqTo]).filter((x): x is number => x !== undefined);
  const fromMs = from.length ? Math.max(...from) : undefined;
  // a range that starts relative to now (from=-8d, earliest=-1h) and names no end ends now, as
  // Splunk's does: events stamped in the future are not "the last 8 days"
  const relativeStart = fromQuery ? a.fromRelative === true : req.from !== undefined && isRelativeTime(req.from);
  if (to.length === 0 && relativeStart) to.push(nowMs + 1);
  const toMs = to.length ? Math.min(...to) : undefined;
  narrowIndexes(deps.store, q, targets);
  const possible =
    targets.envs.length > 0 &&
    (targets.indexes === null || targets.indexes.length > 0) &&
    !(fromMs !== undefined && toMs !== undefined && fromMs >= toMs);
  // an unknown table is the caller's error even when no event could reach the pipe
  checkLookupTables(q.pipes, deps.lookups);
  return { q, a, targets, nowMs, fromMs, toMs, possible, signal: req.signal, lookups: deps.lookups, warnings };
}

/**
 * fast path: `index=web` (or `index=web*`) AND-ed at the top of the search narrows the scan to
 * those indexes, so the store never opens the others' blocks. Matching follows the filter's own
 * rule (case-insensitive, `*` a wildcard), over the indexes the store knows.
 */
function narrowIndexes(store: EventStore, q: Query, targets: SearchTargets): void {
  // the scan also feeds `append` subqueries, which may read other indexes
  if (subqueries(q).length > 0) return;
  for (const c of conjuncts(q.search)) {
    if (c.kind !== 'field' || c.field !== 'index' || c.op !== '=') continue;
    const v = c.value.toLowerCase();
    const re = v.includes('*') ? wildcardRegex(v) : undefined;
    const known = new Set(store.partitions(targets.envs).map((x) => x.index));
    const hit = [...known].filter((i) => (re ? re.test(i.toLowerCase()) : i.toLowerCase() === v));
    targets.indexes = targets.indexes === null ? hit : targets.indexes.filter((i) => hit.includes(i));
  }
}

export function scanSpec(p: Prepared, fields: ScanSpec['fields'], requiredTokens = p.a.requiredTokens): ScanSpec {
  return {
    envs: p.targets.envs,
    indexes: p.targets.indexes,
    fromUs: p.fromMs === undefined ? undefined : p.fromMs * 1000,
    toUs: p.toMs === undefined ? undefined : p.toMs * 1000,
    requiredTokens,
    fieldTokens: requiredTokens === p.a.requiredTokens ? p.a.fieldTokens : [],
    fields,
    signal: p.signal,
  };
}

/** The scan range of a search that keeps every event (count-fast-path.ts). */
export function bucketSpec(p: Prepared): BucketCountSpec {
  const { envs, indexes, fromUs, toUs, signal } = scanSpec(p, []);
  return { envs, indexes, fromUs, toUs, signal };
}

export function partitionsOf(store: EventStore, p: Prepared): PartitionSummary[] {
  if (p.targets.envs.length === 0) return [];
  return store
    .partitions(p.targets.envs)
    .filter((s) => p.targets.indexes === null || p.targets.indexes.includes(s.index));
}

/** The query's time range, else the extent of the data it may read. */
export function extent(store: EventStore, p: Prepared): { fromMs: number; toMs: number } | undefined {
  const parts = partitionsOf(store, p);
  const dataFrom = parts.length ? Math.floor(Math.min(...parts.map((s) => s.minTimeUs)) / 1000) : undefined;
  const dataTo = parts.length ? Math.floor(Math.max(...parts.map((s) => s.maxTimeUs)) / 1000) + 1 : undefined;
  const fromMs = p.fromMs ?? dataFrom;
  const toMs = p.toMs ?? dataTo;
  return fromMs === undefined || toMs === undefined || !Number.isFinite(fromMs) || !Number.isFinite(toMs)
    ? undefined
    : { fromMs, toMs };
}
