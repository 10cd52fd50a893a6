import type { Principal } from '../auth/principal.js';
import type { EventStore } from '../storage/types.js';
import { compile } from './compile.js';
import { prepare, scanSpec, type Prepared, type PlanDeps } from './prepare.js';
import { refuseOutputlookup } from './run-outputlookup.js';
import { elapsedMs, jsonValue } from './results.js';
import { newestCutoff, sinceSpec } from './run-newest-cutoff.js';
import { fieldSummarySql } from './sql/field-summary.js';
import type { FieldsResult, SearchRequest } from './types.js';

/** Newest matching events the field summary samples. */
const FIELD_SAMPLE = 10_000;
/** Core columns the summary lists beside the user fields; always text. */
const CORE_TEXT = ['index', 'host', 'source', 'sourcetype', 'env'];

type FieldSummary = FieldsResult['fields'][number];

/**
 * The fields of a search's newest FIELD_SAMPLE matches (SearchService.fields): per field the events
 * that have it and its `top` most common values, fields by how many events have them.
 */
export async function fieldsRun(
  deps: PlanDeps,
  principal: Principal,
  req: SearchRequest & { top?: number },
): Promise<FieldsResult> {
  const t0 = performance.now();
  const p = await prepare(deps, principal, req);
  refuseOutputlookup(p.q, 'a field summary');
  const top = Math.min(Math.max(1, Math.floor(req.top ?? 5)), 100);
  if (!p.possible) return { fields: [], meta: { matched: 0, scanned: 0, tookMs: 0 } };
  const types = fieldTypes(deps.store, p);
  // the sample is the newest FIELD_SAMPLE matches: find the time of the last one reading few
  // columns, then extract every field only from blocks and rows from that time on
  const first = await newestCutoff(deps.store, p, FIELD_SAMPLE);
  if (first.n === 0 || first.cutoffUs === null)
    return { fields: [], meta: { matched: 0, scanned: first.scanned, tookMs: elapsedMs(t0) } };
  const cutoffUs = first.cutoffUs;
  const rows = await deps.store.scan(sinceSpec(p, cutoffUs), async (rel, exec) => {
    const c = compile(p.q, rel, { nowMs: p.nowMs, limit: 1, searchOnly: true, sinceUs: cutoffUs });
    return (await exec(fieldSummarySql(c, [...CORE_TEXT, ...rel.fieldColumns], FIELD_SAMPLE, top))).rows;
  });
  return {
    fields: shapeFields(rows, types),
    meta: { matched: first.n, scanned: first.scanned, tookMs: elapsedMs(t0) },
  };
}

/** The stored type of each user field the search may read, to turn the summary's text back into values. */
function fieldTypes(store: EventStore, p: Prepared): Map<string, string> {
  const range = scanSpec(p, []);
  return new Map(
    store
      .fields({ envs: p.targets.envs, indexes: p.targets.indexes, fromUs: range.fromUs, toUs: range.toUs })
      .map((f) => [f.name, f.type]),
  );
}

/** Rows `name, value, count, total` (sql/field-summary.ts) as fields, most common first (ties by name), values likewise. */
function shapeFields(rows: unknown[][], types: Map<string, string>): FieldSummary[] {
  const byName = new Map<string, FieldSummary>();
  for (const [name, value, cnt, total] of rows) {
    const n = String(name);
    const type = CORE_TEXT.includes(n) ? 'string' : (types.get(n) ?? 'string');
    let f = byName.get(n);
    if (!f) byName.set(n, (f = { name: n, type, count: Number(jsonValue(total)), top: [] }));
    f.top.push({ value: typedValue(value, type), count: Number(jsonValue(cnt)) });
  }
  const fields = [...byName.values()].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
  for (const f of fields) f.top.sort((a, b) => b.count - a.count || (String(a.value) < String(b.value) ? -1 : 1));
  return fields;
}

/** A value the summary cast to text, back as its field's type (a number field's `"404"` is 404). */
function typedValue(value: unknown, type: string): unknown {
  if (type === 'number' && value !== null && value !== '' && !Number.isNaN(Number(value))) return Number(value);
  return type === 'boolean' ? value === 'true' : value;
}
