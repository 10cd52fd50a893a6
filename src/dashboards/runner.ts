import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { canRead, isAdmin, isReservedName, listAllows } from '../auth/rbac.js';
import type { DashboardRefresh } from '../control/records.js';
import { SvcError } from '../errors/svc-error.js';
import type { HistogramResult, SearchMeta, SearchResult, SearchService } from '../query/types.js';
import { parseTime } from '../query/time-range.js';
import { AnswerCache, type CacheLimits, type CacheOutcome } from './cache.js';
import type { ResolvedRange } from './types.js';

/** One search a panel or a query variable needs, its variables already substituted. */
export interface RunTarget {
  kind: 'search' | 'histogram';
  q: string;
  env: string;
  index?: string;
  range: ResolvedRange;
  limit?: number;
}

type Answer = SearchResult | HistogramResult;

export interface RunOutcome {
  result: Answer;
  cache: CacheOutcome;
  hidden?: string;
}

/** How long a refresh interval is; `off` keeps answers 10 s (a reload right after a load is free). */
export function refreshMs(r: DashboardRefresh): number {
  return { off: 10_000, '10s': 10_000, '1m': 60_000, '5m': 300_000 }[r];
}

/**
 * The dashboard's range (or the request's) resolved to instants. Relative times resolve against
 * `now` (the client's, so every panel of one load shares it; else the server's clock), rounded
 * up to the refresh interval: loads within one interval ask for the same range, so the cache can
 * answer them, and nothing up to now is left out.
 */
export function resolveRange(
  time: { from: string; to: string },
  refresh: DashboardRefresh,
  req: { from?: string; to?: string; now?: string },
  clockNow: number,
): ResolvedRange {
  const step = refreshMs(refresh);
  const now = req.now === undefined ? clockNow : at('now', req.now, clockNow);
  const rounded = Math.ceil(now / step) * step;
  const from = at('from', req.from ?? time.from, rounded);
  const to = at('to', req.to ?? time.to, rounded);
  if (from >= to)
    throw new SvcError('invalid_time', `from "${req.from ?? time.from}" is not before to "${req.to ?? time.to}"`);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

function at(field: string, text: string, nowMs: number): number {
  try {
    return parseTime(text, nowMs);
  } catch (e) {
    if (e instanceof SvcError) throw new SvcError('invalid_time', `${field}: ${e.message}`, { details: { field } });
    throw e;
  }
}

/**
 * Runs panel searches as their viewer through the SearchService (RBAC, admission and limits as for
 * /api/search), with the answer cache in front. Safe to call concurrently.
 */
export class PanelRunner {
  private readonly cache: AnswerCache<Answer>;

  constructor(
    private readonly search: SearchService,
    private readonly envs: () => string[],
    limits: CacheLimits,
    now: () => number,
  ) {
    this.cache = new AnswerCache(limits, now);
  }

  /** Runs started, cache hits and shared runs since start. */
  get counts(): Readonly<AnswerCache<Answer>['counts']> {
    return this.cache.counts;
  }

  async run(p: Principal, t: RunTarget, ttlMs: number): Promise<RunOutcome> {
    const access = this.access(p, t);
    if (access.blocked) return { result: empty(t.kind), cache: 'miss', hidden: access.note };
    const key = createHash('sha256')
      .update(
        JSON.stringify([t.kind, t.q, t.env, t.index ?? null, t.range.from, t.range.to, t.limit ?? null, accessKey(p)]),
      )
      .digest('base64url');
    // no caller's signal: a shared run must not stop because the first of its callers left
    const req = { q: t.q, env: t.env, index: t.index, from: t.range.from, to: t.range.to, limit: t.limit };
    const { value, cache } = await this.cache.get(key, ttlMs, () =>
      t.kind === 'histogram' ? this.search.histogram(p, req) : this.search.search(p, req),
    );
    return { result: value, cache, hidden: access.note };
  }

  /**
   * What the viewer's access leaves out of `t`: a named env or index they may not read blocks the
   * panel (it shows nothing, and says why); `*` over envs they may not all read is narrowed, and said.
   */
  private access(p: Principal, t: RunTarget): { blocked: boolean; note?: string } {
    if (t.env !== '*' && !canRead(p, t.env))
      return { blocked: true, note: `hidden by your access: you may not read environment "${t.env}"` };
    const indexes = p.kind === 'ingest_token' ? [] : p.allow.indexes;
    if (t.index && t.index !== '*' && !listAllows(indexes, t.index))
      return { blocked: true, note: `hidden by your access: you may not read index "${t.index}"` };
    const notes: string[] = [];
    if (t.env === '*') {
      const hidden = this.envs().filter((e) => !isReservedName(e) && !canRead(p, e)).length;
      if (hidden > 0) notes.push(`${hidden} environment${hidden === 1 ? '' : 's'} you may not read`);
    }
    if ((t.index === undefined || t.index === '*') && !indexes.includes('*')) notes.push('indexes you may not read');
    return {
      blocked: false,
      note: notes.length ? `some data is hidden by your access (${notes.join(' and ')})` : undefined,
    };
  }
}

/**
 * The caller's effective access, not who they are: two viewers with the same role and allowlists
 * share cached answers, and a changed allowlist misses the cache at once.
 */
function accessKey(p: Principal): string {
  if (p.kind === 'ingest_token') return 'none';
  return JSON.stringify([isAdmin(p), [...p.allow.envs].sort(), [...p.allow.indexes].sort()]);
}

function empty(kind: RunTarget['kind']): Answer {
  const meta: SearchMeta = { matched: 0, scanned: 0, tookMs: 0 };
  return kind === 'histogram' ? { spanSecs: 0, buckets: [], meta } : { events: [], meta };
}
