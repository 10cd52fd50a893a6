import type { Principal } from '../auth/principal.js';
import { isAdmin } from '../auth/rbac.js';
import { checkName } from '../control/names.js';
import type { FieldValue, LogEvent } from '../events/event.js';
import { SvcError } from '../errors/svc-error.js';
import { subqueries } from './compile.js';
import type { CollectPipe } from './pipes/pipe-collect.js';
import type { PlanDeps, Prepared } from './prepare.js';
import type { EventJson, SearchResult } from './types.js';

/** Most rows (or events) collect writes; a search giving more is refused rather than cut. */
export const COLLECT_MAX_ROWS = 10_000;

const fail = (message: string) =>
  new SvcError('invalid_query', `collect: ${message}`, { details: { pipe: 'collect' } });

/**
 * The search's `collect`, checked before it runs, by outputlookup's rules (run-outputlookup.ts):
 * the last pipe, not in a subsearch, the admin scope (it writes events, as only ingest tokens
 * otherwise do) and the caller's confirmation (`writes=allow`); and one environment to write into.
 */
export function collectOf(
  p: Prepared,
  principal: Principal,
  deps: PlanDeps,
  writes: 'allow' | undefined,
): { n: CollectPipe; env: string } | undefined {
  const q = p.q;
  if (subqueries(q).some((s) => s.pipes.some((x) => x.kind === 'collect')))
    throw fail('cannot be used inside a subsearch');
  const i = q.pipes.findIndex((x) => x.kind === 'collect');
  if (i < 0) return undefined;
  if (i !== q.pipes.length - 1) throw fail('must be the last pipe of the search');
  const n = q.pipes[i] as CollectPipe;
  checkName('index', n.index);
  if (!isAdmin(principal))
    throw new SvcError('insufficient_scope', 'collect writes events into an index, which needs the admin scope');
  if (!deps.eventSink) throw fail('events cannot be written here');
  if (p.targets.envs.length !== 1)
    throw fail(
      `the search reads ${p.targets.envs.length} environments; name the one to write index "${n.index}" of (env=)`,
    );
  if (writes !== 'allow' && n.testmode !== true)
    throw new SvcError(
      'invalid_query',
      `collect: this search writes events into index "${n.index}", so it runs only when confirmed (writes=allow): a link, a saved search or a tool never writes on its own`,
      { details: { pipe: 'collect', index: n.index, confirm: 'writes=allow' } },
    );
  return { n, env: p.targets.envs[0] };
}

/** Fields Splunk's collect renames (`host` → `orig_host`): the written event has its own. */
const RENAMED = new Set(['host', 'source', 'sourcetype', 'index', 'env']);

/** A value as key=value text writes it: quoted when it holds a space, a comma, a quote or `=`. */
function kvValue(v: FieldValue): string {
  const s = String(v);
  return /[\s,"=]/.test(s) || s === '' ? `"${s.replace(/["\\]/g, '\\$&')}"` : s;
}

/** One row's fields as the event's stored fields and its text (`a=1, b="x y"`, a list as one pair a value). */
function rowEvent(cols: [string, unknown][]): { message: string; fields: Record<string, FieldValue> } {
  const fields: Record<string, FieldValue> = {};
  const pairs: string[] = [];
  for (const [c, v] of cols) {
    if (c.startsWith('_') || v === null || v === undefined) continue;
    const name = RENAMED.has(c) ? `orig_${c}` : c;
    const vals = (Array.isArray(v) ? v : [v]).map((x) =>
      typeof x === 'number' || typeof x === 'boolean' || typeof x === 'string' ? x : JSON.stringify(x),
    );
    for (const x of vals) pairs.push(`${name}=${kvValue(x)}`);
    if (vals.length > 0) fields[name] = Array.isArray(v) ? JSON.stringify(vals) : vals[0];
  }
  return { message: pairs.join(', '), fields };
}

function timeUsOf(v: unknown, nowMs: number): number {
  const ms = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v * 1000 : NaN;
  // microseconds of an RFC 3339 time are kept: the answers write them
  const us = typeof v === 'string' ? /\.\d{3}(\d{3})/.exec(v)?.[1] : undefined;
  return Number.isFinite(ms) ? ms * 1000 + Number(us ?? 0) : nowMs * 1000;
}

/**
 * The events of a result: a row becomes an event whose text is its fields as key=value pairs
 * (Splunk's collect of a table), or its `_raw`/`message` when it has one; an event keeps its text.
 */
export function collectedEvents(n: CollectPipe, env: string, host: string, result: SearchResult, nowMs: number) {
  const base = {
    env,
    index: n.index,
    host: n.host ?? host,
    source: n.source ?? 'collect',
    sourcetype: n.sourcetype ?? 'stash',
  };
  const fromRow = (cols: [string, unknown][]): LogEvent => {
    const own = new Map(cols);
    const text = own.get('_raw') ?? own.get('message');
    const kv = rowEvent(cols.filter(([c]) => c !== 'message'));
    return {
      ...base,
      timeUs: timeUsOf(own.get('_time'), nowMs),
      message: typeof text === 'string' && text !== '' ? text : kv.message,
      fields: kv.fields,
    };
  };
  if (result.columns && result.rows)
    return result.rows.map((r) => fromRow(result.columns!.map((c, i) => [c, r[i]] as [string, unknown])));
  return result.events.map((e: EventJson): LogEvent => ({
    ...base,
    timeUs: timeUsOf(e.time, nowMs),
    message: e.message,
    fields: {},
  }));
}

/** Writes the result as events; with testmode=true nothing, and the answer's warnings say so. */
export async function writeCollect(
  deps: PlanDeps,
  c: { n: CollectPipe; env: string },
  result: SearchResult,
  nowMs: number,
): Promise<void> {
  const count = result.rows?.length ?? result.events.length;
  if (count > COLLECT_MAX_ROWS) throw fail(`the search gave more than ${COLLECT_MAX_ROWS} rows; narrow it`);
  const events = collectedEvents(c.n, c.env, deps.eventSink!.host, result, nowMs);
  if (c.n.testmode === true)
    (result.meta.warnings ??= []).push(
      `collect: testmode=true, so the ${events.length} events were not written into index "${c.n.index}"`,
    );
  else if (events.length > 0) await deps.eventSink!.write(events);
}
