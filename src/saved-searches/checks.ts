import type { Principal } from '../auth/principal.js';
import { resolveSearchTargets } from '../auth/rbac.js';
import type { SavedSearchRecord, SavedView } from '../control/records.js';
import type { ControlReader } from '../control/types.js';
import { SvcError } from '../errors/svc-error.js';
import { parse } from '../query/parser.js';
import { refuseOutputlookup } from '../query/run-outputlookup.js';
import { parseTime } from '../query/time-range.js';

/** The stored fields a create or an edit sets; checked for meaning here, for shape by the HTTP schema. */
export type SavedFields = Pick<
  SavedSearchRecord,
  'name' | 'description' | 'query' | 'env' | 'index' | 'range' | 'view' | 'shared'
>;

/** The search page's default range, used when a saved search names none. */
export const DEFAULT_RANGE = Object.freeze({ from: '-15m', to: 'now' });
export const DEFAULT_VIEW: SavedView = Object.freeze({ type: 'events' });

/** Refuses a query that does not parse or that writes, naming `query` and keeping the parser's position. */
export function checkQuery(query: string): void {
  try {
    // a saved search runs when someone opens it: it never writes (lookup tables, collect)
    refuseOutputlookup(parse(query), 'a saved search');
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
    throw new SvcError(e.code, `query: ${e.message}`, { details: { ...e.details, field: 'query' } });
  }
}

/** Refuses a range whose ends do not parse or that ends before it starts (resolved now), naming the end. */
export function checkRange(range: { from: string; to: string }, nowMs: number): void {
  const at = (field: 'from' | 'to') => {
    try {
      return parseTime(range[field], nowMs);
    } catch (e) {
      if (!(e instanceof SvcError)) throw e;
      throw new SvcError('invalid_time', `range.${field}: ${e.message}`, { details: { field: `range.${field}` } });
    }
  };
  if (at('from') >= at('to'))
    throw new SvcError('invalid_time', `range.from: must be before range.to ("${range.from}" .. "${range.to}")`, {
      details: { field: 'range.from' },
    });
}

/**
 * Refuses an env or index the caller may not search (403, before saying whether it exists: a name
 * one may not read is not one's business), then an unknown env (400). `*` is every readable env.
 */
export function checkTarget(p: Principal, env: string, index: string | undefined, control: ControlReader): void {
  resolveSearchTargets(p, { env, index }, []);
  if (env !== '*' && !control.env(env))
    throw new SvcError('unknown_environment', `env: unknown environment "${env}"`, { details: { field: 'env' } });
}
