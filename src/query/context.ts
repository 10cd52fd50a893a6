import type { Principal } from '../auth/principal.js';
import { resolveSearchTargets } from '../auth/rbac.js';
import { bug, SvcError } from '../errors/svc-error.js';
import type { EventStore, ScanSpec } from '../storage/types.js';
import { baseSchema, selectList } from './compile.js';
import type { PlanDeps } from './prepare.js';
import { toEvent } from './results.js';
import { ident, str } from './sql.js';
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
/** Ties on time are ordered by these, so that the same request always gives the same answer. */
const TIEBREAK = ['host', 'source', 'sourcetype', 'message'].map((c) => `e.${ident(c)}`);

type Side = 'before' | 'after';

/**
 * Events around one event (GET /api/context): those with the same env and index (and host and
 * source when given), `before` newest ones older than the anchor time, every one at that time, and
 * `after` oldest ones newer, compared on the stored microsecond time. RBAC as a search naming that
 * env and index.
 */
export async function contextRun(deps: PlanDeps, principal: Principal, req: ContextRequest): Promise<ContextResult> {
  const t = exactTimeUs(req.time);
  if (t === undefined) throw new SvcError('invalid_input', `time: want the event time as search returned it, such as 2026-01-31T12:00:00.123456Z (got ${JSON.stringify(req.time)})`, { details: { field: 'time' } });
  for (const key of ['env', 'index'] as const) {
    if (!req[key] || req[key] === '*') throw new SvcError('invalid_input', `${key}: name the event's ${key === 'env' ? 'environment' : 'index'}, not ${JSON.stringify(req[key] ?? '')}`, { details: { field: key } });
  }
  const targets = resolveSearchTargets(principal, { env: req.env, index: req.index }, deps.control.envs().map((e) => e.name));
  const base: ScanSpec = { envs: targets.envs, indexes: [req.index], requiredTokens: [], fields: '*', signal: req.signal };
  // an event without host or source shows '' (results.ts): match it by that
  const filters = [...(req.host !== undefined ? [`coalesce(host, '') = ${str(req.host)}`] : []), ...(req.source !== undefined ? [`coalesce(source, '') = ${str(req.source)}`] : [])];
  const want = (n: number | undefined) => Math.min(Math.max(0, Math.floor(n ?? DEFAULT_SIDE)), MAX_SIDE);
  const at = await readEvents(deps.store, { ...base, fromUs: t, toUs: t + 1 }, [`_time = ${us(t)}`, ...filters], 'ASC', MAX_AT);
  const before = await nearest(deps.store, base, filters, t, 'before', want(req.before));
  const after = await nearest(deps.store, base, filters, t, 'after', want(req.after));
  return { before: before.events, at, after: after.events, moreBefore: before.more, moreAfter: after.more };
}

const us = (t: number) => `make_timestamp(${t}::BIGINT)`;

/** The `n` events nearest to `t` on one side (ascending), and whether more lie beyond them. */
async function nearest(store: EventStore, base: ScanSpec, filters: string[], t: number, side: Side, n: number): Promise<{ events: EventJson[]; more: boolean }> {
  const cmp = side === 'before' ? `_time < ${us(t)}` : `_time > ${us(t)}`;
  for (const w of WINDOWS_US) {
    // the scan's range is [fromUs, toUs): `before` ends at t (exclusive), `after` starts just past it
    const range = side === 'before' ? { fromUs: w === undefined ? undefined : t - w, toUs: t } : { fromUs: t + 1, toUs: w === undefined ? undefined : t + 1 + w };
    // one more than wanted says whether more exist
    const events = await readEvents(store, { ...base, ...range }, [cmp, ...filters], side === 'before' ? 'DESC' : 'ASC', n + 1);
    if (events.length > n || w === undefined) {
      const kept = events.slice(0, n);
      return { events: side === 'before' ? kept.reverse() : kept, more: events.length > n };
    }
  }
  throw bug('the last context window is unbounded');
}

/** Events of the scan matching `where`, ordered by time (ties by TIEBREAK) in `dir`, at most `limit`. */
async function readEvents(store: EventStore, spec: ScanSpec, where: string[], dir: 'ASC' | 'DESC', limit: number): Promise<EventJson[]> {
  return store.scan(spec, async (rel, exec) => {
    const columns = [...baseSchema(rel)].map(([name, type]) => ({ name, type }));
    // e._time: the stored time, not the text the SELECT list makes of it
    const order = ['e._time', ...TIEBREAK].map((c) => `${c} ${dir}`).join(', ');
    const r = await exec(`SELECT ${selectList(columns)} FROM ${rel.sql} AS e WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${limit}`);
    return r.rows.map((row) => toEvent(r.columns, row));
  });
}
