import type { DashboardPanel, DashboardVariable } from '../control/records.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import { parse } from '../query/parser.js';
import { refuseOutputlookup } from '../query/run-outputlookup.js';
import { parseTime } from '../query/time-range.js';
import { fieldError, type CreateInput, type ExportedPanel, type PanelInput } from './format.js';
import { findLoop, references, substitute, type VarValue } from './variables.js';

/** The meaning of a dashboard a client sent, checked once its shape is (format.ts). */
export type CheckedBody = Omit<CreateInput, 'panels' | 'shared'> & { panels: DashboardPanel[] };

/** A body to check: as parsed, or a stored dashboard with a patch over it. */
export type BodyInput = Omit<CreateInput, 'panels' | 'shared'> & {
  panels: readonly (PanelInput | ExportedPanel | DashboardPanel)[];
};

/**
 * The saved search a panel names, as the one saving may read it: its name and query, or a throw
 * (invalid_input naming `field`) when it is not there or not theirs to read.
 */
/**
 * A saved search as the one saving may read it; undefined for a reference the dashboard already
 * held that they can no longer read (its panel is left as it was, and answers its error when run).
 */
export type SavedSearchLookup = (
  id: string,
  field: string,
  panelId: string | undefined,
) => { name: string; query: string } | undefined;

/**
 * Checks what the shape cannot say: unique panel ids and variable names, what each variable kind
 * needs, the time range, every query (it parses with its variables filled in, names only known
 * variables, never writes) and no loop among query variables. Gives panels without an id one.
 * Throws invalid_input naming the place (`panels[2].source.query`), with a parse error's position.
 */
export function checkBody(body: BodyInput, nowMs: number, lookup: SavedSearchLookup): CheckedBody {
  checkTime(body.time, nowMs);
  const vars = body.variables;
  vars.forEach((v, i) => checkVariable(v, i, vars));
  const loop = findLoop(new Map(vars.map((v) => [v.name, v.query ? references(v.query).map((r) => r.name) : []])));
  if (loop) {
    const i = vars.findIndex((v) => v.name === loop[0]);
    throw fieldError(
      `variables[${i}].query`,
      `variables use each other in a loop: ${loop.map((n) => `$${n}$`).join(' → ')}`,
    );
  }
  const panels = withIds(body.panels);
  checkPanels(panels, vars, lookup);
  return { ...body, panels };
}

function checkTime(t: { from: string; to: string }, nowMs: number): void {
  const at = (field: 'from' | 'to') => {
    try {
      return parseTime(t[field], nowMs);
    } catch (e) {
      if (!isSvcError(e)) throw e;
      throw fieldError(`time.${field}`, e.message);
    }
  };
  if (at('from') >= at('to')) throw fieldError('time.from', `"${t.from}" is not before time.to "${t.to}"`);
}

function checkVariable(v: DashboardVariable, i: number, all: readonly DashboardVariable[]): void {
  const at = `variables[${i}]`;
  if (all.findIndex((x) => x.name === v.name) !== i) throw fieldError(`${at}.name`, `"${v.name}" is used twice`);
  const need = (field: keyof DashboardVariable, ok: boolean, why: string) => {
    if (!ok) throw fieldError(`${at}.${field}`, why);
  };
  need(
    'values',
    v.kind === 'list' ? (v.values?.length ?? 0) > 0 : v.values === undefined,
    `${v.kind === 'list' ? 'a list variable needs values' : `only a list variable has values`}`,
  );
  need(
    'query',
    v.kind === 'query' ? v.query !== undefined : v.query === undefined,
    v.kind === 'query' ? 'a query variable needs a query' : 'only a query variable has a query',
  );
  need(
    'env',
    v.kind === 'query' ? v.env !== undefined : v.env === undefined && v.index === undefined,
    v.kind === 'query' ? 'a query variable needs an env (or *)' : 'only a query variable has an env and index',
  );
  need('default', !Array.isArray(v.default) || v.multi === true, 'a list of values needs "multi": true');
  const defaults = v.default === undefined ? [] : [v.default].flat();
  const outside = v.kind === 'list' ? defaults.find((x) => !v.values?.includes(x)) : undefined;
  need('default', outside === undefined, `${JSON.stringify(outside)} is not one of the values`);
  if (v.query) checkQuery(`${at}.query`, v.query, all);
}

/**
 * Panel ids as given, and p1, p2, … for those without (skipping ids already taken). A saved-search
 * source is stored as its reference only: an export file's snapshot is not kept (import used it).
 */
function withIds(input: BodyInput['panels']): DashboardPanel[] {
  const panels = input.map((p) =>
    'savedSearchId' in p.source ? { ...p, source: { savedSearchId: p.source.savedSearchId } } : p,
  );
  const taken = new Set<string>();
  panels.forEach((p, i) => {
    if (p.id === undefined) return;
    if (taken.has(p.id)) throw fieldError(`panels[${i}].id`, `"${p.id}" is used twice`);
    taken.add(p.id);
  });
  let n = 0;
  return panels.map((p) => {
    if (p.id !== undefined) return { ...p, id: p.id };
    let id: string;
    do id = `p${++n}`;
    while (taken.has(id));
    taken.add(id);
    return { ...p, id };
  });
}

/**
 * Checks each panel's query against the dashboard's variables; a saved-search panel's is its saved
 * search's query, read as the one saving (so an unknown `$name$` in it is refused here too).
 */
function checkPanels(
  panels: readonly DashboardPanel[],
  vars: readonly DashboardVariable[],
  lookup: SavedSearchLookup,
): void {
  panels.forEach((p, i) => {
    if ('query' in p.source) return checkQuery(`panels[${i}].source.query`, p.source.query, vars);
    const field = `panels[${i}].source.savedSearchId`;
    const saved = lookup(p.source.savedSearchId, field, p.id);
    if (!saved) return;
    try {
      checkQuery(field, saved.query, vars);
    } catch (e) {
      if (!isSvcError(e)) throw e;
      throw new SvcError(
        e.code,
        e.message.replace(`${field}: `, `${field}: the query of saved search "${saved.name}": `),
        {
          details: e.details,
        },
      );
    }
  });
}

/**
 * Parses `query` with each variable filled in by a stand-in value (two for a multi variable, so
 * the IN form is parsed too); an error's position is mapped back to the query as written.
 */
export function checkQuery(field: string, query: string, vars: readonly DashboardVariable[]): void {
  const stand = new Map<string, VarValue>(vars.map((v) => [v.name, v.multi ? ['x', 'y'] : 'x']));
  const s = substitute(query, stand, (r) =>
    fieldError(field, `unknown variable $${r.name}$ at position ${r.position}`, { position: r.position }),
  );
  try {
    refuseOutputlookup(parse(s.text), 'a dashboard');
  } catch (e) {
    if (!isSvcError(e)) throw e;
    const p = e.details?.position;
    if (typeof p !== 'number')
      throw new SvcError(e.code, `${field}: ${e.message}`, { details: { ...e.details, field } });
    const position = p < s.origin.length ? s.origin[p] : query.length;
    const message = e.message.replace(/position \d+/g, `position ${position}`);
    throw new SvcError(
      'invalid_query',
      `${field}: ${message}${message.includes('position') ? '' : ` at position ${position}`}`,
      {
        details: { ...e.details, field, position },
      },
    );
  }
}
