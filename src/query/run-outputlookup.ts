import type { Principal } from '../auth/principal.js';
import { isAdmin } from '../auth/rbac.js';
import { SvcError } from '../errors/svc-error.js';
import { subqueries } from './compile.js';
import type { Query } from './parser.js';
import type { OutputlookupPipe } from './pipes/pipe-outputlookup.js';
import type { PlanDeps } from './prepare.js';
import type { SearchResult } from './types.js';

/** Most rows outputlookup writes; a search giving more is refused rather than cut. */
export const OUTPUTLOOKUP_MAX_ROWS = 10_000;

const fail = (message: string) =>
  new SvcError('invalid_query', `outputlookup: ${message}`, { details: { pipe: 'outputlookup' } });

/**
 * The search's `outputlookup`, checked before it runs: one write per search, not inside a subsearch, by a
 * principal with the right of the lookup admin API (writing a table is what an upload does), and
 * confirmed by the caller (`writes`): the web UI runs the query of a page's URL as it opens, so
 * without this a link sent to an admin would overwrite a table (Splunk's "risky commands").
 * Undefined when the query has none.
 */
export function outputlookupOf(
  q: Query,
  principal: Principal,
  deps: PlanDeps,
  writes: 'allow' | undefined,
): OutputlookupPipe | undefined {
  if (subqueries(q).some((s) => s.pipes.some((p) => p.kind === 'outputlookup')))
    throw fail('cannot be used inside a subsearch');
  const i = q.pipes.findIndex((p) => p.kind === 'outputlookup');
  if (i < 0) return undefined;
  if (q.pipes.slice(i + 1).some((p) => p.kind === 'outputlookup' || p.kind === 'collect'))
    throw fail('a search writes one table or index: only one outputlookup or collect');
  if (!isAdmin(principal))
    throw new SvcError(
      'insufficient_scope',
      'outputlookup writes a lookup table, which needs the admin scope (as uploading one under Admin → Lookups does)',
    );
  if (!deps.lookupWriter) throw fail('lookup tables cannot be written here');
  const n = q.pipes[i] as OutputlookupPipe;
  if (writes !== 'allow')
    throw new SvcError(
      'invalid_query',
      `outputlookup: this search writes lookup table "${n.table}", so it runs only when confirmed (writes=allow): a link, a saved search or a tool never writes on its own`,
      { details: { pipe: 'outputlookup', table: n.table, confirm: 'writes=allow' } },
    );
  return n;
}

/**
 * Refuses a query with `outputlookup` or `collect` where the search does not run as a search (a
 * histogram, a field summary, an export, a monitor): only a confirmed search writes, and only its
 * answer says what it wrote.
 */
export function refuseOutputlookup(q: Query, what: string): void {
  const pipes = [q, ...subqueries(q)].flatMap((s) => s.pipes);
  const n = pipes.find((p) => p.kind === 'outputlookup');
  if (n)
    throw new SvcError(
      'invalid_query',
      `outputlookup: ${what} does not write lookup table "${n.table}"; run it as a search (writes=allow on /api/search)`,
      { details: { pipe: 'outputlookup', table: n.table } },
    );
  const c = pipes.find((p) => p.kind === 'collect');
  if (c)
    throw new SvcError(
      'invalid_query',
      `collect: ${what} does not write events into index "${c.index}"; run it as a search (writes=allow on /api/search)`,
      { details: { pipe: 'collect', index: c.index } },
    );
}

/**
 * Writes the result's rows as the table. A result of events is refused (Splunk writes every field
 * of every event; svc writes tables: put stats, table or fields before it), as is one with more
 * than OUTPUTLOOKUP_MAX_ROWS rows. No rows: nothing is written (svc keeps no empty table) and the
 * answer says so.
 */
export async function writeOutputlookup(
  deps: PlanDeps,
  principal: Principal,
  n: OutputlookupPipe,
  result: SearchResult,
): Promise<void> {
  if (result.columns === undefined || result.rows === undefined) {
    if (result.events.length === 0) return noRows(n, result);
    throw fail('writes a table: put stats or table … before it');
  }
  if (result.rows.length > OUTPUTLOOKUP_MAX_ROWS)
    throw fail(`the search gave more than ${OUTPUTLOOKUP_MAX_ROWS} rows; narrow it`);
  if (result.rows.length === 0) return noRows(n, result);
  await deps.lookupWriter!.write(n.table, result.columns, result.rows, {
    append: n.append,
    key: n.keyField,
    by: principal.name,
  });
}

function noRows(n: OutputlookupPipe, result: SearchResult): void {
  (result.meta.warnings ??= []).push(
    `outputlookup: the search gave no rows, so lookup table "${n.table}" was left as it was (svc keeps no empty tables)`,
  );
}
