import type { Principal } from '../auth/principal.js';
import type { DashboardPanel, DashboardRecord, DashboardVariable, InlineSource } from '../control/records.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { SearchResult } from '../query/types.js';
import type { SavedSearchService } from '../saved-searches/service.js';
import { fieldError, LIMITS } from './format.js';
import { refreshMs, resolveRange, type PanelRunner, type RunOutcome } from './runner.js';
import type { PanelAnswer, PanelMeta, VariableValues } from './types.js';
import { substitute, type VarValue } from './variables.js';

/** What a run names: the range (else the dashboard's), the instant relative times resolve at, variable values. */
export interface RunRequest {
  from?: string;
  to?: string;
  /** RFC 3339 or epoch ms: send the same one for every panel of one load (docs/dashboards.md). */
  now?: string;
  vars?: Record<string, string | string[]>;
}

/** How dashboards read saved searches: as the caller, with the caller's rights (404 for one they may not see). */
export type SavedSearchReader = Pick<SavedSearchService, 'get'>;

/** Rows an events panel shows, and rows any other panel's table may have. */
const EVENTS_LIMIT = 100;
const TABLE_LIMIT = 1000;
/** Values a query variable offers at most. */
const VALUES_LIMIT = 1000;

/**
 * Runs one panel of `d` as the caller `p`: its query (its own, or its saved search's as `p` may read
 * it) with the variables' values inserted (quoted, variables.ts), over the dashboard's resolved
 * range, through the runner (RBAC as /api/search, cache, shared runs).
 */
export async function runPanel(
  runner: PanelRunner,
  saved: SavedSearchReader,
  p: Principal,
  d: DashboardRecord,
  panelId: string,
  req: RunRequest,
  nowMs: number,
): Promise<PanelAnswer> {
  const i = d.panels.findIndex((x) => x.id === panelId);
  if (i < 0) throw new SvcError('not_found', `no panel ${panelId} in dashboard ${d.id}`);
  const panel = d.panels[i];
  const { source, field, of } = sourceOf(saved, p, panel, i);
  const q = substitute(source.query, valuesOf(d, req), (r) =>
    fieldError(field, `variable $${r.name}$${of} has no value (panel "${panel.title || panel.id}"): give it in vars`),
  ).text;
  const range = resolveRange(d.time, d.refresh, req, nowMs);
  const kind = panel.type === 'histogram' ? 'histogram' : 'search';
  const limit = kind === 'histogram' ? undefined : panel.type === 'events' ? EVENTS_LIMIT : TABLE_LIMIT;
  // the resolved query, env and index are the cache key's (runner.ts): an edited saved search misses at once
  const out = await runner.run(
    p,
    { kind, q, env: source.env, index: source.index, range, limit },
    refreshMs(d.refresh),
  );
  // `source`: what ran, variables inserted, so a drill-down opens the search page on the same query
  const ran = { query: q, env: source.env, ...(source.index ? { index: source.index } : {}) };
  return { ...out.result, panel: { id: panel.id, type: panel.type }, source: ran, range, meta: metaOf(out) };
}

/** The values a variable offers: a list's own, or the first column of a query variable's table (run as `p`). */
export async function variableValues(
  runner: PanelRunner,
  p: Principal,
  d: DashboardRecord,
  name: string,
  req: RunRequest,
  nowMs: number,
): Promise<VariableValues> {
  const i = d.variables.findIndex((v) => v.name === name);
  if (i < 0) throw new SvcError('not_found', `no variable ${name} in dashboard ${d.id}`);
  const v = d.variables[i];
  if (v.kind === 'list') return { name, values: v.values ?? [] };
  if (v.kind === 'text' || !v.query || !v.env)
    throw new SvcError('invalid_input', `variables[${i}]: a ${v.kind} variable has no values to list`, {
      details: { field: `variables[${i}]` },
    });
  const field = `variables[${i}].query`;
  const q = substitute(v.query, valuesOf(d, req), (r) =>
    fieldError(field, `variable $${r.name}$ has no value: give it in vars`),
  ).text;
  const range = resolveRange(d.time, d.refresh, req, nowMs);
  const out = await runner.run(
    p,
    { kind: 'search', q, env: v.env, index: v.index, range, limit: VALUES_LIMIT },
    refreshMs(d.refresh),
  );
  const r = out.result as SearchResult;
  if (!r.columns && out.hidden === undefined)
    throw new SvcError(
      'invalid_query',
      `${field}: a query variable takes its values from a table: end the query with a table pipe (| stats count by host)`,
      { details: { field } },
    );
  const values = [...new Set((r.rows ?? []).map((row) => row[0]).filter((x) => x !== null && x !== undefined))]
    .map(String)
    .slice(0, VALUES_LIMIT);
  return { name, values, range, meta: metaOf(out) };
}

/**
 * What panel `i` runs: its inline source, or its saved search's query, env and index read as `p`
 * (never its saved range: the dashboard's applies). One `p` may not see (another's private one, a
 * deleted one) is a 404 naming the panel and its path, never data of it.
 */
function sourceOf(
  saved: SavedSearchReader,
  p: Principal,
  panel: DashboardPanel,
  i: number,
): { source: InlineSource; field: string; of: string } {
  if ('query' in panel.source) return { source: panel.source, field: `panels[${i}].source.query`, of: '' };
  const id = panel.source.savedSearchId;
  const field = `panels[${i}].source.savedSearchId`;
  try {
    const s = saved.get(p, id);
    return { source: { query: s.query, env: s.env, index: s.index }, field, of: ` (in saved search "${s.name}")` };
  } catch (e) {
    if (!isSvcError(e) || e.code !== 'not_found') throw e;
    throw new SvcError(
      'not_found',
      `${field}: panel "${panel.title || panel.id}": no saved search ${id} you may read (deleted, or private to its owner)`,
      { details: { field, panel: panel.id } },
    );
  }
}

function metaOf(out: RunOutcome): PanelMeta {
  return {
    ...out.result.meta,
    cache: out.cache,
    ...(out.hidden ? { hidden: out.hidden } : {}),
  };
}

/**
 * Every variable's value in this run: the request's, else its default, else a list's first value
 * (a text variable's is empty). A query variable without either has none: a query using it is
 * refused naming the panel. Values are checked here; they are quoted when inserted.
 */
function valuesOf(d: DashboardRecord, req: RunRequest): Map<string, VarValue> {
  const given = req.vars ?? {};
  for (const name of Object.keys(given))
    if (!d.variables.some((v) => v.name === name))
      throw fieldError(`vars.${name}`, `the dashboard has no variable "${name}"`);
  const out = new Map<string, VarValue>();
  for (const v of d.variables) {
    const value = given[v.name] ?? v.default ?? fallback(v);
    if (value !== undefined) out.set(v.name, checked(v, value));
  }
  return out;
}

function fallback(v: DashboardVariable): VarValue | undefined {
  if (v.kind === 'text') return '';
  if (v.kind === 'list' && v.values?.length) return v.multi ? [v.values[0]] : v.values[0];
  return undefined;
}

function checked(v: DashboardVariable, value: VarValue): VarValue {
  const field = `vars.${v.name}`;
  const list = Array.isArray(value) ? value : [value];
  if (!v.multi && Array.isArray(value)) throw fieldError(field, 'takes one value, not a list');
  if (list.length === 0) throw fieldError(field, 'choose at least one value');
  if (list.length > 100) throw fieldError(field, 'at most 100 values');
  for (const x of list) {
    if (typeof x !== 'string') throw fieldError(field, 'values are strings');
    if (x.length > LIMITS.value) throw fieldError(field, `a value is at most ${LIMITS.value} characters`);
    if (v.kind === 'list' && !v.values?.includes(x))
      throw fieldError(field, `${JSON.stringify(x.slice(0, 40))} is not one of its values`);
  }
  return v.multi ? list : value;
}
