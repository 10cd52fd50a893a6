import type { Principal } from '../auth/principal.js';
import { resolveSearchTargets } from '../auth/rbac.js';
import { bug, SvcError } from '../errors/svc-error.js';
import type { EventStore, ScanSpec } from '../storage/types.js';
import type { PlanDeps } from './prepare.js';
import { toEvent } from './results.js';
import { eventsAroundSql, type AroundQuery } from './sql/events-around.js';
import { exactTimeUs } from './time-range.js';
import type { ContextRequest, ContextResult, EventJson } from './types.js';

/** Events at exactly the anchor time returned at most (real logs put many events in one second, few in one microsecond). */
export const MAX_AT = 1000;
export const MAX_SIDE = 500;
const DEFAULT_SIDE = 20;
/**
 * Windows tried in turn on each side of the anchor, widening until one holds enough events: the
 * nearest events are usually close by, and a narrow window lets the store skip every other block.
 * The last, unbounded, is the answer when the others fall short.
 */
const WINDOWS_US = [60e6, 3600e6, 86_400e6, 30 * 86_400e6, undefined];

type Side = 'before' | 'after';
/** Which events to read around the anchor, but for the side and how many. */
type Match = Pick<AroundQuery, 't' | 'host' | 'source'>;

/**
 * Events around one event (GET /api/context): those with the same env and index (and host and
 * source when given), `before` newest ones older than the anchor time, every one at that time, and
 * `after` oldest ones newer, compared on the stored microsecond time. RBAC as a search naming that
 * env and index.
 */
export async function contextRun(deps: PlanDeps, principal: Principal, req: ContextRequest): Promise<ContextResult> {
  const t = exactTimeUs(req.time);
  if (t === undefined)
    throw new SvcError(
      'invalid_input',
      `time: want the event time as search returned it, such as 2026-01-31T12:00:00.123456Z (got ${JSON.stringify(req.time)})`,
      { details: { field: 'time' } },
    );
  for (const key of ['env', 'index'] as const) {
    if (!req[key] || req[key] === '*')
      throw new SvcError(
        'invalid_input',
        `${key}: name the event's ${key === 'env' ? 'environment' : 'index'}, not ${JSON.stringify(req[key] ?? '')}`,
        { details: { field: key } },
      );
  }
  const targets = resolveSearchTargets(
    principal,
    { env: req.env, index: req.index },
    deps.control.envs().map((e) => e.name),
  );
  const base: ScanSpec = {
    envs: targets.envs,
    indexes: [req.index],
    requiredTokens: [],
    fields: '*',
    signal: req.signal,
  };
  const match: Match = { t, host: req.host, source: req.source };
  const want = (n: number | undefined) => Math.min(Math.max(0, Math.floor(n ?? DEFAULT_SIDE)), MAX_SIDE);
  const at = await readEvents(deps.store, { ...base, fromUs: t, toUs: t + 1 }, { ...match, side: 'at', limit: MAX_AT });
  const before = await nearest(deps.store, base, match, 'before', want(req.before));
  const after = await nearest(deps.store, base, match, 'after', want(req.after));
  return { before: before.events, at, after: after.events, moreBefore: before.more, moreAfter: after.more };
}

/** The `n` events nearest to the anchor on one side (ascending), and whether more lie beyond them. */
async function nearest(
  store: EventStore,
  base: ScanSpec,
  match: Match,
  side: Side,
  n: number,
): Promise<{ events: EventJson[]; more: boolean }> {
  const t = match.t;
  for (const w of WINDOWS_US) {
    // the scan's range is [fromUs, toUs): `before` ends at t (exclusive), `after` starts just past it
    const range =
      side === 'before'
        ? { fromUs: w === undefined ? undefined : t - w, toUs: t }
        : { fromUs: t + 1, toUs: w === undefined ? undefined : t + 1 + w };
    // one more than wanted says whether more exist
    const events = await readEvents(store, { ...base, ...range }, { ...match, side, limit: n + 1 });
    if (events.length > n || w === undefined) {
      const kept = events.slice(0, n);
      return { events: side === 'before' ? kept.reverse() : kept, more: events.length > n };
    }
  }
  throw bug('the last context window is unbounded');
}

/** Events of the scan that `q` selects, in its order (sql/events-around.ts). */
async function readEvents(store: EventStore, spec: ScanSpec, q: AroundQuery): Promise<EventJson[]> {
  return store.scan(spec, async (rel, exec) => {
    const r = await exec(eventsAroundSql(rel, q));
    return r.rows.map((row) => toEvent(r.columns, row));
  });
}
