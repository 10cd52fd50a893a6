import { partitionsOf, scanSpec, type PlanDeps, type Prepared } from './prepare.js';
import { jsonValue } from './results.js';
import { conjuncts } from './search/filter-logic.js';
import { countEventsSql } from './sql/count-events.js';
import { isoFromUs } from './time-range.js';
import type { SearchMeta, SearchRequest } from './types.js';

/**
 * Why nothing matched: no readable env, an unknown env, an empty env/index, or how many of its
 * events lie outside the time range. Only the last needs a scan (a count over the range); the
 * rest comes from the store's partition summaries.
 */
export async function noMatchHint(deps: PlanDeps, p: Prepared, req: SearchRequest): Promise<SearchMeta['hint']> {
  const where = `env ${p.targets.envs.length === 1 ? `"${p.targets.envs[0]}"` : `(${p.targets.envs.join(', ')})`}${req.index && req.index !== '*' ? ` index "${req.index}"` : ''}`;
  if (p.targets.envs.length === 0)
    return { eventsOutsideRange: 0, message: 'no environment to search: none is readable with these credentials' };
  const envName = p.targets.envs[0];
  if (p.targets.envs.length === 1 && !deps.control.env(envName)) {
    return { eventsOutsideRange: 0, message: `environment "${envName}" does not exist: check env` };
  }
  const named = filteredEnv(p);
  if (named !== undefined) {
    return {
      eventsOutsideRange: 0,
      message: `env=${named} in a query only filters the events of ${where}: search env "${named}" with the env parameter (the environment picker in the UI)`,
    };
  }
  const before = partitionsOf(deps.store, p).reduce((s, x) => s + x.events, 0);
  if (before === 0) return { eventsOutsideRange: 0, message: `${where} holds no events: check env and index` };
  const inRange = await eventsInRange(deps, p, before);
  // the summaries are read after the count: events that arrived while it ran are then in both, not
  // only in the count (which gave "eventsOutsideRange": -5000 under ingest); a retention sweep in
  // between can still take some away, hence the floor
  const parts = partitionsOf(deps.store, p);
  const total = parts.reduce((s, x) => s + x.events, 0);
  const outside = Math.max(0, total - inRange);
  if (parts.length === 0) return { eventsOutsideRange: 0, message: `${where} holds no events: check env and index` };
  const earliest = isoFromUs(Math.min(...parts.map((s) => s.minTimeUs)));
  const latest = isoFromUs(Math.max(...parts.map((s) => s.maxTimeUs)));
  const message =
    outside > 0
      ? `no events match; ${outside} events of ${where} lie outside the time range (data from ${earliest} to ${latest}): widen the time range`
      : `no events match the query; ${where} holds ${total} events from ${earliest} to ${latest}`;
  return { eventsOutsideRange: outside, earliest, latest, message };
}

/**
 * An `env=NAME` AND-ed at the top of the search that none of the searched envs is: the filter
 * can only match nothing. (The docs name svc's own logs `env=_system index=_svclogs`, and a
 * Splunk user types `index=` to choose where to search; env is chosen by the request instead.)
 */
function filteredEnv(p: Prepared): string | undefined {
  for (const c of conjuncts(p.q.search)) {
    if (c.kind !== 'field' || c.field !== 'env' || c.op !== '=' || c.value.includes('*')) continue;
    if (!p.targets.envs.some((e) => e.toLowerCase() === c.value.toLowerCase())) return c.value;
  }
  return undefined;
}

/** Events of the env/index inside the search's time range; all of them (`total`) when it has none. */
async function eventsInRange(deps: PlanDeps, p: Prepared, total: number): Promise<number> {
  if (p.fromMs === undefined && p.toMs === undefined) return total;
  // no tokens, no fields: the scan's time range alone decides which events count
  return deps.store.scan(scanSpec(p, [], []), async (rel, exec) =>
    Number(jsonValue((await exec(countEventsSql(rel))).rows[0][0])),
  );
}
